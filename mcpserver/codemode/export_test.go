package codemode

import "context"

// Transform exposes transform to the benchmarks.
func Transform(src string) (string, error) {
	p, err := transform(src)
	if err != nil {
		return "", err
	}
	return p.JS, nil
}

// Refreshed exposes refreshed: whether a refresh (re)added the code tool.
func (m *Mode) Refreshed(ctx context.Context) (bool, error) { return m.refreshed(ctx) }

package codemode

import (
	"context"

	"github.com/mcpwasm/mcpwasm/mcpserver"
)

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

// CallAs is one tool call of a run by identity id, as the runner's mcp.call makes it: the
// way to reach the Go-side checks with a tool the program's table does not hold.
func (m *Mode) CallAs(ctx context.Context, id *mcpserver.Identity, tool string) error {
	m.mu.Lock()
	base := m.api
	m.mu.Unlock()
	r := &run{id: "t", api: m.apiFor(id), base: base, ident: id, cancel: func() {}}
	_, err := m.call(context.WithValue(ctx, runKey{}, r), tool, []byte("{}"))
	return err
}

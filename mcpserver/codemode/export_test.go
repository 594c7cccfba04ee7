package codemode

// Transform exposes transform to the benchmarks.
func Transform(src string) (string, error) {
	p, err := transform(src)
	if err != nil {
		return "", err
	}
	return p.JS, nil
}

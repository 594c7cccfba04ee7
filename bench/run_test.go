package bench

import (
	"errors"
	"testing"
)

// A benchmark that fails is an error naming it and saying why, never a row of zeros: the
// driver returns it and exits 1, so the CI benchmark step fails.
func TestRunFailingCase(t *testing.T) {
	for _, c := range []struct {
		name, want string
		f          func(b *testing.B)
	}{
		{"Fail", "benchmark wat/broken: echo: call failed", func(b *testing.B) { Fail(b, "echo: call failed") }},
		{"b.Fatal", "benchmark wat/broken: it failed or ran no iteration", func(b *testing.B) { b.Fatal("not through Fail") }},
		{"wrong echo", "benchmark wat/broken: echo: returned 2 bytes (\"{}\"…), not the 100 bytes it was given", func(b *testing.B) {
			verifyEcho(b, []byte(`{"content":[],"structuredContent":{}}`), nil, Args(100), true)
			for b.Loop() {
			}
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			r, err := Run(Case{Group: "wat", Name: "broken", Size: 100, F: c.f})
			if err == nil || err.Error() != c.want {
				t.Errorf("Run: %v (result %+v), want the error %q", err, r, c.want)
			}
		})
	}
}

// echoed holds every echo path to its input: as it is, or as a tool result's structured
// content (Guest.Call).
func TestEchoed(t *testing.T) {
	args := Args(100)
	wrapped := append(append([]byte(`{"content":[],"structuredContent":`), args...), '}')
	for _, c := range []struct {
		name    string
		out     []byte
		err     error
		wrapped bool
		ok      bool
	}{
		{"plain", args, nil, false, true},
		{"wrapped", wrapped, nil, true, true},
		{"plain but wrapped", wrapped, nil, false, false},
		{"empty", nil, nil, false, false},
		{"truncated", args[:99], nil, false, false},
		{"error", args, errors.New("trap"), false, false},
		{"not a result", args[:50], nil, true, false},
	} {
		if err := echoed(c.out, c.err, args, c.wrapped); (err == nil) != c.ok {
			t.Errorf("%s: echoed = %v, want ok %v", c.name, err, c.ok)
		}
	}
}

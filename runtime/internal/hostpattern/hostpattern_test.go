package hostpattern

import "testing"

func TestHostPatternWithin(t *testing.T) {
	for _, tc := range []struct {
		p, q string
		want bool
	}{
		{"api.example.com", "*.example.com", true},
		{"a.b.example.com", "*.example.com", true},
		{"example.com", "*.example.com", false},
		{"*.eu.example.com", "*.example.com", true},
		{"*.example.com", "*.example.com", true},
		{"*.example.com", "api.example.com", false},
		{"API.Example.COM.", "api.example.com", true},
		{"api.example.com:8443", "api.example.com:*", true},
		{"api.example.com:*", "api.example.com:8443", false},
		{"api.example.com", "api.example.com:443", false},
		{"anything.org", "*", true},
		{"*", "*.example.com", false},
		{"[0:0:0:0:0:0:0:1]:80", "[::1]:80", true},
		{"evil.org", "*.example.com", false},
	} {
		p, err := Parse(tc.p)
		if err != nil {
			t.Fatal(err)
		}
		q, err := Parse(tc.q)
		if err != nil {
			t.Fatal(err)
		}
		if got := p.Within(q); got != tc.want {
			t.Errorf("%q within %q = %v; want %v", tc.p, tc.q, got, tc.want)
		}
		// Whatever lies within q intersects q as itself.
		if tc.want {
			if got, ok := Intersect(tc.p, tc.q); !ok || got != p.String() {
				t.Errorf("intersect(%q, %q) = %q, %v; want %q", tc.p, tc.q, got, ok, p.String())
			}
		}
	}
}

package sandbox

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
		p, err := parseHostPattern(tc.p)
		if err != nil {
			t.Fatal(err)
		}
		q, err := parseHostPattern(tc.q)
		if err != nil {
			t.Fatal(err)
		}
		if got := p.within(q); got != tc.want {
			t.Errorf("%q within %q = %v; want %v", tc.p, tc.q, got, tc.want)
		}
		// Whatever lies within q intersects q as itself.
		if tc.want {
			if got, ok := intersectHostPatterns(tc.p, tc.q); !ok || got != p.String() {
				t.Errorf("intersect(%q, %q) = %q, %v; want %q", tc.p, tc.q, got, ok, p.String())
			}
		}
	}
}

func TestGrantsClone(t *testing.T) {
	g := Grants{Net: []string{"a"}, Exec: []ExecGrant{{Path: "/bin/x", Args: []string{"1"}, Env: []string{"E"}}},
		FS: []FSGrant{{Guest: "/d", Host: "/h"}}, Env: []string{"E"}, MCP: []string{"m"}}
	c := g.Clone()
	c.Net[0], c.Exec[0].Args[0], c.Exec[0].Env[0], c.FS[0].Host, c.Env[0], c.MCP[0] = "x", "x", "x", "x", "x", "x"
	if g.Net[0] != "a" || g.Exec[0].Args[0] != "1" || g.Exec[0].Env[0] != "E" || g.FS[0].Host != "/h" || g.Env[0] != "E" || g.MCP[0] != "m" {
		t.Errorf("Clone shares memory with the original: %+v", g)
	}
}

package suggest

import "testing"

func TestDistance(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"abc", "", 3}, {"", "ab", 2}, {"allowed_host", "allowed_hosts", 1},
		{"timeout", "timout", 1}, {"kitten", "sitting", 3}, {"memlimit", "memory_limit", 4},
	} {
		if got := Distance(c.a, c.b); got != c.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
}

func TestNearest(t *testing.T) {
	names := []string{"net", "exec", "fs", "env"}
	for _, c := range []struct {
		s    string
		max  int
		want string
	}{
		{"nett", 2, "net"}, {"envv", 2, "env"}, {"sampling", 2, ""}, {"ne", 1, "net"}, {"xx", 0, ""},
	} {
		if got := Nearest(c.s, names, c.max); got != c.want {
			t.Errorf("Nearest(%q, %d) = %q, want %q", c.s, c.max, got, c.want)
		}
	}
}

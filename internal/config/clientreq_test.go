package config

import (
	"strings"
	"testing"

	"github.com/mcpwasm/mcpwasm/runtime"
)

// The client request grants (ABI.md §6.7) are bools per guest, narrowed per tool, and the
// request state key is hex of at least 32 bytes.
func TestClientRequestGrants(t *testing.T) {
	key := strings.Repeat("ab", 32)
	c, err := Parse([]byte(`{"request_state_key": "` + key + `", "guests": [{"path": "a.wasm",
		"grants": {"sampling": true, "elicitation": true, "roots": true},
		"tools": {"confirm": {"grants": {"elicitation": true}}}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if c.RequestStateKey != key {
		t.Errorf("request_state_key = %q", c.RequestStateKey)
	}
	rc := c.GuestConfig(c.Guests[0], "a.wasm")
	if want := (runtime.Grants{Sampling: true, Elicitation: true, Roots: true}); !equalClientGrants(rc.Grants, want) {
		t.Errorf("guest grants = %+v", rc.Grants)
	}
	if want := (runtime.Grants{Elicitation: true}); !equalClientGrants(rc.ToolGrants["confirm"], want) {
		t.Errorf("tool grants = %+v", rc.ToolGrants["confirm"])
	}
	for _, bad := range []string{
		`{"guests": [], "request_state_key": "abcd"}`,                             // too short
		`{"guests": [], "request_state_key": "` + strings.Repeat("zz", 32) + `"}`, // not hex
		`{"guests": [{"path": "a.wasm", "grants": {"sampling": "yes"}}]}`,
	} {
		if _, err := Parse([]byte(bad)); err == nil {
			t.Errorf("accepted %s", bad)
		}
	}
}

func equalClientGrants(a, b runtime.Grants) bool {
	return a.Sampling == b.Sampling && a.Elicitation == b.Elicitation && a.Roots == b.Roots
}

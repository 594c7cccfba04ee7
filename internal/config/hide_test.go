package config

import (
	"strings"
	"testing"
)

// hide_tools reaches the runtime's GuestConfig as written; the schema takes only a list of
// non-empty strings.
func TestHideToolsConfig(t *testing.T) {
	c, err := Parse([]byte(`{"guests":[{"path":"/p/gh.wasm","tool_prefix":"gh_","hide_tools":["delete_.*","create_gist"]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	rc := c.GuestConfig(c.Guests[0], "gh.wasm")
	if got := strings.Join(rc.HideTools, " "); got != "delete_.* create_gist" || rc.ToolPrefix != "gh_" {
		t.Errorf("HideTools %q, ToolPrefix %q", got, rc.ToolPrefix)
	}
	for _, bad := range []string{`"delete_.*"`, `[""]`, `[1]`} {
		if _, err := Parse([]byte(`{"guests":[{"path":"/p/gh.wasm","hide_tools":` + bad + `}]}`)); err == nil || !strings.Contains(err.Error(), "hide_tools") {
			t.Errorf("hide_tools %s: %v, want an error naming hide_tools", bad, err)
		}
	}
}

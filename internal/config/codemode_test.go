package config

import (
	"strings"
	"testing"
)

func TestCodeModeSection(t *testing.T) {
	c, err := Parse([]byte(`{"guests": [], "code_mode": {"enabled": true, "tool": "js", "allow": ["calc", "docs.search"], "unconfirmed": ["notes.append"], "max_calls": 20, "timeout_ms": 2000, "memory_mb": 16}}`))
	if err != nil {
		t.Fatal(err)
	}
	cm := c.CodeMode
	if cm == nil || !cm.Enabled || cm.Tool != "js" || strings.Join(cm.Allow, ",") != "calc,docs.search" || cm.Unconfirmed[0] != "notes.append" || cm.MaxCalls != 20 || cm.TimeoutMS != 2000 || cm.MemoryMB != 16 {
		t.Errorf("code_mode = %+v", cm)
	}
	for _, bad := range []string{
		`{"code_mode": {"enabled": true, "max_call": 5}}`,
		`{"code_mode": {"max_calls": 0}}`,
		`{"code_mode": {"tool": "has space"}}`,
	} {
		if _, err := Parse([]byte(bad)); err == nil || !strings.Contains(err.Error(), "code_mode") {
			t.Errorf("%s: error %v, want one naming code_mode", bad, err)
		}
	}
}

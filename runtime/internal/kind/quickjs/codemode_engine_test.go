package quickjs_test

import (
	"testing"

	"github.com/mcpwasm/mcpwasm/mcpserver/codemode"
	"github.com/mcpwasm/mcpwasm/runtime/internal/kind/quickjs"
)

// Code mode embeds the engine this kind pins: the same sha256, so an engine upgrade updates
// both (mcpserver/codemode/engine.go says how to fetch it).
func TestCodeModeEmbedsThePinnedEngine(t *testing.T) {
	if codemode.EngineSHA256 != quickjs.EngineSHA256 {
		t.Errorf("codemode embeds engine %s, the JavaScript kind pins %s", codemode.EngineSHA256, quickjs.EngineSHA256)
	}
}

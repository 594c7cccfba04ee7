package ship_test

import (
	"encoding/json"
	"testing"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/internal/ship"
)

// A lock written before "_meta" and "execution" were digested is not a change after an
// upgrade (the next lock --update records them); once recorded, a changed taskSupport is.
func TestDiffOldLockMissingFields(t *testing.T) {
	m := &abi.Manifest{Tools: []abi.Tool{{Name: "job", InputSchema: json.RawMessage(`{"type":"object"}`),
		Execution: &abi.ToolExecution{TaskSupport: abi.TaskOptional}}}}
	now := ship.ToolFields(m)
	old := map[string]ship.ToolDigests{"job": {}}
	for f, d := range now["job"] {
		if f != "_meta" && f != "execution" {
			old["job"][f] = d
		}
	}
	if len(old["job"]) != len(now["job"])-2 {
		t.Fatalf("fields: %v", now["job"])
	}
	if c := ship.Diff(old, now); len(c) != 0 {
		t.Errorf("an old lock: %v; want no change", c)
	}
	m.Tools[0].Execution.TaskSupport = abi.TaskRequired
	if c := ship.Diff(now, ship.ToolFields(m)); len(c) != 1 || c[0].String() != `tool "job": execution changed` {
		t.Errorf("taskSupport optional → required: %v", c)
	}
}

// A guest tool's _meta is in its lock: an MCP App view whose ui.resourceUri changed after the
// lock was written is a change (the tool is withheld until lock --update), as a changed
// description is; the same _meta in another key order is not.
func TestDiffGuestToolMetaChanged(t *testing.T) {
	tool := func(meta string) *abi.Manifest {
		return &abi.Manifest{Tools: []abi.Tool{{Name: "shout", InputSchema: json.RawMessage(`{"type":"object"}`), Meta: json.RawMessage(meta)}}}
	}
	locked := ship.ToolFields(tool(`{"ui":{"resourceUri":"ui://shout/view.html","prefersBorder":true}}`))
	if c := ship.Diff(locked, ship.ToolFields(tool(`{"ui":{"prefersBorder":true,"resourceUri":"ui://shout/view.html"}}`))); len(c) != 0 {
		t.Errorf("same _meta, other key order: %v; want no change", c)
	}
	if c := ship.Diff(locked, ship.ToolFields(tool(`{"ui":{"resourceUri":"ui://shout/other.html","prefersBorder":true}}`))); len(c) != 1 || c[0].String() != `tool "shout": _meta changed` {
		t.Errorf("resourceUri changed: %v; want one change naming _meta", c)
	}
}

package engine

import (
	"encoding/json"
	"testing"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/runtime/internal/schema"
	"github.com/mcpwasm/mcpwasm/runtime/policy"
)

// FuzzManifest: decoding a guest's manifest (mcpwasm_describe, ABI.md §4) and compiling its
// tools — names, limits, input and output schemas, the flat acceptor — never panics,
// whatever the guest wrote; a tool that compiles validates arguments without panicking and
// its flat acceptor never accepts what the full validator refuses.
func FuzzManifest(f *testing.F) {
	for _, s := range []string{
		`{"name":"g","tools":[{"name":"echo","inputSchema":{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}}]}`,
		`{"name":"g","tools":[{"name":"a","inputSchema":{"type":"object","additionalProperties":false,"properties":{"n":{"type":"integer","minimum":1e400}}},"outputSchema":{"$ref":"#/$defs/x","$defs":{"x":{"type":"object"}}}}]}`,
		`{"name":"g","tools":[{"name":"b","inputSchema":{"type":"object","properties":{"r":{"$ref":"#"}}},"limits":{"timeout_ms":-1}}],"resources":[{"uri":"x://y","name":"y"}]}`,
		`{"name":"g","tools":[{"name":"bad name","inputSchema":{"type":"string"}}]}`,
		`{"tools":null}`, `[]`, `{"name":"g","tools":[{"name":"c","inputSchema":{"type":"object","pattern":"(("}}]}`,
	} {
		f.Add([]byte(s), []byte(`{"text":"x","n":9007199254740993}`))
	}
	f.Fuzz(func(t *testing.T, manifest, args []byte) {
		var m abi.Manifest
		if json.Unmarshal(manifest, &m) != nil {
			return
		}
		for _, td := range m.Tools {
			tl, err := newTool(td, policy.DefaultLimits(), Limits{})
			if err != nil {
				continue
			}
			full := schema.Validate(tl.input, args)
			if tl.flat != nil && tl.flat.Accepts(args) && full != nil {
				t.Errorf("tool %q: flat acceptor accepts %q, full validation says %v", td.Name, args, full)
			}
		}
	})
}

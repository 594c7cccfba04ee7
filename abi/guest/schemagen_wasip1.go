//go:build wasip1 && mcpwasm_infer

package guest

import "encoding/json"

// exportSchemagen returns, as a packed region (ABI.md §3), the JSON object
// {"<tool>": {"Input": "<schema>", "Output": "<schema>"}} of the schemas AddTool inferred.
// Only schemagen builds guests with -tags mcpwasm_infer and calls it; the host never does.
//
//go:wasmexport mcpwasm_schemagen
func exportSchemagen() uint64 {
	outBuf, _ = json.Marshal(reg.inferred)
	return packOut()
}

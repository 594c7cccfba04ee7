// Command gopdk is a hyper-mcp v1 plugin in the shape of hyper-mcp's Go plugins, written with
// the Extism Go PDK as those are: its entry points are marked //export, TinyGo's directive.
// Built with stock Go (GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared), which ignores
// //export, it exports only _initialize; mcpwasm refuses it with the fix. The tests of
// cmd/mcpwasm build it as it is and with the two-line fix (//go:wasmexport call and
// //go:wasmexport describe), which is served. Its own go.mod pins the PDK (v1.1.3).
package main

import (
	"encoding/json"

	"github.com/extism/go-pdk"
)

type callToolRequest struct {
	Params struct {
		Name      string         `json:"name"`
		Arguments map[string]any `json:"arguments"`
	} `json:"params"`
}

//export call
func call() int32 {
	var req callToolRequest
	if err := json.Unmarshal(pdk.Input(), &req); err != nil {
		pdk.SetError(err)
		return 1
	}
	name, _ := req.Params.Arguments["name"].(string)
	out, _ := json.Marshal(map[string]any{
		"content": []map[string]any{{"type": "text", "text": "Hello, " + name + "!"}},
	})
	pdk.Output(out)
	return 0
}

//export describe
func describe() int32 {
	pdk.OutputString(`{"tools":[{"name":"greet","description":"Greets a name","inputSchema":{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}}]}`)
	return 0
}

func main() {}

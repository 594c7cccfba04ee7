// Command goecho is the Go guest of the benchmarks: one tool that returns its arguments as
// structured content, written with the guest SDK's AddRawTool. The benchmark harness builds
// it with
//
//	GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -trimpath -ldflags="-s -w" -o goecho.wasm ./bench/testdata/goecho
//
// and makes copies with distinct guest and tool names by rewriting the marker ID in the
// binary (same length, so the module stays valid).
package main

import (
	"context"
	"encoding/json"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/abi/guest"
)

// ID is the guest name and the tool name; copies replace its last four digits.
const ID = "gecho0000"

func init() {
	guest.SetInfo(ID, "1.0.0", "benchmark echo")
	guest.AddRawTool(abi.Tool{
		Name:        ID,
		Description: "Returns its arguments",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}}}`),
	}, func(_ context.Context, args json.RawMessage) (*abi.Result, error) {
		return &abi.Result{Content: []abi.Content{}, StructuredContent: args}, nil
	})
}

func main() {}

// Command gosha is the CPU-bound Go guest of the benchmarks: SHA-256 of 1 MiB, both as a tool
// (guest SDK, for Guest.Call) and as a bare //go:wasmexport sha (for the floor rows, which call
// it in a plain wazero runtime), so every row runs the same compiled hash loop. Build:
//
//	GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -trimpath -ldflags="-s -w" -o gosha.wasm ./bench/testdata/gosha
package main

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/abi/guest"
)

// Tool is the guest and tool name.
const Tool = "gosha"

var data = func() []byte {
	b := make([]byte, 1<<20)
	for i := range b {
		b[i] = byte(i * 7)
	}
	return b
}()

// sha hashes the 1 MiB buffer and returns the first 8 bytes of the digest.
//
//go:wasmexport sha
func sha() uint64 {
	sum := sha256.Sum256(data)
	return binary.BigEndian.Uint64(sum[:8])
}

func init() {
	guest.SetInfo(Tool, "1.0.0", "benchmark: SHA-256 of 1 MiB")
	guest.AddRawTool(abi.Tool{
		Name:        Tool,
		Description: "Returns the SHA-256 of a fixed 1 MiB buffer",
		InputSchema: json.RawMessage(`{"type":"object"}`),
	}, func(context.Context, json.RawMessage) (*abi.Result, error) {
		sum := sha256.Sum256(data)
		return &abi.Result{Content: []abi.Content{{Type: "text", Text: hex.EncodeToString(sum[:])}}}, nil
	})
}

func main() {}

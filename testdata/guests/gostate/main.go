// Command gostate is a Go guest that keeps state between calls, for the tests of instances
// restored from a snapshot (runtime/internal/engine/snapshot_internal_test.go). Its init fills 4 MiB of heap
// (so a started instance's memory is well past the module's initial memory) and keeps a
// checksum of it; tool remember returns {"prev":…,"calls":N,"init":checksum}: the arguments
// of the previous call this instance served (null at first), how many calls it served, and
// the checksum recomputed from the heap init filled. Built by the tests with
//
//	GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o gostate.wasm ./testdata/guests/gostate
package main

import (
	"context"
	"encoding/json"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/abi/guest"
)

var (
	heap  []byte
	prev  json.RawMessage
	calls int
)

func sum(b []byte) uint32 {
	var s uint32
	for i, c := range b {
		s = s*31 + uint32(c) + uint32(i)
	}
	return s
}

func init() {
	heap = make([]byte, 4<<20)
	for i := range heap {
		heap[i] = byte(i * 7)
	}
	guest.SetInfo("gostate", "1.0.0", "keeps state between calls")
	guest.AddRawTool(abi.Tool{
		Name:        "remember",
		Description: "Returns the previous call's arguments, the calls served and a checksum of what init wrote",
		InputSchema: json.RawMessage(`{"type":"object"}`),
	}, func(_ context.Context, args json.RawMessage) (*abi.Result, error) {
		out, err := json.Marshal(map[string]any{"prev": prev, "calls": calls, "init": sum(heap)})
		if err != nil {
			return nil, err
		}
		prev, calls = append(json.RawMessage(nil), args...), calls+1
		return &abi.Result{Content: []abi.Content{}, StructuredContent: out}, nil
	})
}

func main() {}

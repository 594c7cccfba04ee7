// Command callpanic is a test guest whose tool "say" writes its "lines" to stderr and then,
// if "panic" is set, writes that text as an unrecovered Go panic and exits (a trap): a trap's error must quote the panic line written
// during that call, and never a line of an earlier call or of the start. runtime's
// TestTrapErrorQuotesThisCallsStderr builds it.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/abi/guest"
)

func init() {
	fmt.Fprintln(os.Stderr, "callpanic: starting") // the start's line, never a call's
	guest.SetInfo("callpanic", "1.0.0", "panics on request")
	guest.AddRawTool(abi.Tool{
		Name:        "say",
		Description: "Writes lines to stderr, then panics if asked",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"lines":{"type":"array","items":{"type":"string"}},"panic":{"type":"string"}}}`),
	}, func(_ context.Context, raw json.RawMessage) (*abi.Result, error) {
		var args struct {
			Lines []string `json:"lines"`
			Panic string   `json:"panic"`
		}
		if err := json.Unmarshal(raw, &args); err != nil {
			return nil, err
		}
		for _, l := range args.Lines {
			fmt.Fprintln(os.Stderr, l)
		}
		if args.Panic != "" {
			// What the Go runtime writes for a panic nothing recovers, then its exit: the
			// guest SDK recovers a handler's own panic into a tool error, so this is how a
			// trap with panic text looks from here.
			fmt.Fprintf(os.Stderr, "panic: %s\n\ngoroutine 1 [running]:\nmain.say()\n\t/src/main.go:40 +0x2\n", args.Panic)
			os.Exit(2)
		}
		return &abi.Result{Content: []abi.Content{}}, nil
	})
}

func main() {}

// Command tiny is schemagen's test guest: one AddTool tool with inferred schemas, one whose
// input schema is given, and one raw tool. It has no schemas_gen.go: the test generates one
// into a copy.
package main

import (
	"context"
	"encoding/json"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/abi/guest"
)

type in struct {
	Text  string "json:\"text\" jsonschema:\"the text, with a ` backquote\""
	Times int    `json:"times,omitempty"`
}

type out struct {
	Text string `json:"text"`
}

func init() {
	guest.SetInfo("tiny", "1.0.0", "schemagen test guest")
	guest.AddTool(abi.Tool{Name: "repeat"}, func(_ context.Context, x in) (out, error) { return out{x.Text}, nil })
	guest.AddTool(abi.Tool{Name: "given", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(_ context.Context, x in) (string, error) { return x.Text, nil })
	guest.AddRawTool(abi.Tool{Name: "raw"}, func(context.Context, json.RawMessage) (*abi.Result, error) { return nil, nil })
}

func main() {}

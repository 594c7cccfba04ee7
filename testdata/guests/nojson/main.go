//go:build wasip1

// Command nojson is a test guest for what a build with -tags mcpwasm_nojson does differently:
// panic values formatted without fmt, and a result type with its own MarshalJSON. Its
// schemas are written out, so it needs no schemas_gen.go. guests/nojson_test.go builds it with
//
//	GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -tags mcpwasm_nojson -o nojson.wasm ./testdata/guests/nojson
package main

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/abi/guest"
)

type in struct {
	Kind string `json:"kind"`
}

type point struct{ X, Y int }

type label string

func (l label) String() string { return "label " + string(l) }

// out encodes itself; Kind "bad" makes its MarshalJSON write invalid JSON, "fail" fail.
type out struct{ kind string }

func (o out) MarshalJSON() ([]byte, error) {
	switch o.kind {
	case "bad":
		return []byte(`{"a":}`), nil
	case "fail":
		return nil, errors.New("no")
	}
	return []byte(`{ "kind" : ` + string(guest.AppendJSONString(nil, o.kind)) + ` , "html":"<&>" }`), nil
}

func main() {}

func init() {
	schema := json.RawMessage(`{"type":"object","properties":{"kind":{"type":"string"}},"required":["kind"]}`)
	guest.SetInfo("nojson", "1.0.0", "test guest for -tags mcpwasm_nojson")
	guest.AddTool(abi.Tool{Name: "panic", InputSchema: schema}, func(_ context.Context, a in) (string, error) {
		switch a.Kind {
		case "string":
			panic("boom")
		case "error":
			panic(errors.New("an error"))
		case "stringer":
			panic(label("x"))
		case "int":
			panic(-42)
		case "uint8":
			panic(uint8(200))
		case "float":
			panic(1e21)
		case "float32":
			panic(float32(0.1))
		case "bool":
			panic(true)
		case "struct":
			panic(point{1, 2})
		case "index":
			var s []int
			_ = s[a.Kind[0]]
		}
		return "no panic", nil
	})
	guest.AddTool(abi.Tool{Name: "marshal", InputSchema: schema, OutputSchema: json.RawMessage(`{"type":"object"}`)},
		func(_ context.Context, a in) (out, error) { return out{a.Kind}, nil })
}

package guest

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/mcpwasm/mcpwasm/abi"
)

type calcIn struct {
	Expression string `json:"expression" jsonschema:"the expression"`
}

type calcOut struct {
	Value float64 `json:"value"`
}

// echoResult is reused by the "t_echo" tool so the test can count the SDK's allocations alone.
var echoResult = &abi.Result{Content: []abi.Content{}}

func init() {
	AddRawTool(abi.Tool{Name: "t_echo"}, func(_ context.Context, args json.RawMessage) (*abi.Result, error) {
		echoResult.StructuredContent = args
		return echoResult, nil
	})
	AddRawTool(abi.Tool{Name: "t_raw"}, func(ctx context.Context, args json.RawMessage) (*abi.Result, error) {
		var in struct{ Out string }
		if err := json.Unmarshal(args, &in); err != nil {
			return nil, err
		}
		return &abi.Result{StructuredContent: json.RawMessage(in.Out)}, nil
	})
	AddRawTool(abi.Tool{Name: "t_nil"}, func(context.Context, json.RawMessage) (*abi.Result, error) { return nil, nil })
	AddRawTool(abi.Tool{Name: "t_panic"}, func(context.Context, json.RawMessage) (*abi.Result, error) { panic("oops") })
	AddRawTool(abi.Tool{Name: "t_name"}, func(ctx context.Context, _ json.RawMessage) (*abi.Result, error) {
		return abi.TextResult(ToolName(ctx)), nil
	})
	AddTool(abi.Tool{Name: "t_text"}, func(_ context.Context, in calcIn) (string, error) {
		if in.Expression == "fail" {
			return "", errors.New("division by zero")
		}
		return "<" + in.Expression + ">", nil
	})
	type label string
	AddTool(abi.Tool{Name: "t_label"}, func(_ context.Context, in calcIn) (label, error) { return label(in.Expression), nil })
	AddTool(abi.Tool{Name: "t_struct"}, func(_ context.Context, in calcIn) (calcOut, error) {
		return calcOut{Value: float64(len(in.Expression))}, nil
	})
}

func TestCall(t *testing.T) {
	for _, c := range []struct{ tool, args, want string }{
		{"t_echo", `{"text":"hi"}`, `{"content":[],"structuredContent":{"text":"hi"}}`},
		{"t_echo", `{}`, `{"content":[],"structuredContent":{}}`},
		{"t_raw", `{"Out":"{ \"a\" : [1, 2] }"}`, `{"content":[],"structuredContent":{ "a" : [1, 2] }}`},
		{"t_raw", `{"Out":"{x"}`, `{"content":[{"type":"text","text":"encoding result: json: error calling MarshalJSON for type json.RawMessage: invalid character 'x' looking for beginning of object key string"}],"isError":true}`},
		{"t_raw", `{"Out":""}`, `{"content":[]}`},
		{"t_nil", `{}`, `{"content":[]}`},
		{"t_panic", `{}`, `{"content":[{"type":"text","text":"tool \"t_panic\" panicked: oops"}],"isError":true}`},
		{"t_name", `{}`, `{"content":[{"type":"text","text":"t_name"}]}`},
		{"nope", `{}`, `{"content":[{"type":"text","text":"unknown tool \"nope\""}],"isError":true}`},
		{"t_text", `{"expression":"1 < 2 & \"3\"\n"}`, `{"content":[{"type":"text","text":"<1 < 2 & \"3\"\n>"}]}`},
		{"t_text", `{}`, `{"content":[{"type":"text","text":"<>"}]}`}, // nothing left from the call before
		{"t_text", `{"expression":"fail"}`, `{"content":[{"type":"text","text":"division by zero"}],"isError":true}`},
		{"t_text", `{"expression":1}`, `{"content":[{"type":"text","text":"invalid arguments: json: cannot unmarshal number into Go struct field calcIn.expression of type string"}],"isError":true}`},
		{"t_label", `{"expression":"é"}`, `{"content":[{"type":"text","text":"é"}]}`},
		{"t_struct", `{"expression":"a<b"}`, `{"content":[{"type":"text","text":"{\"value\":3}"}],"structuredContent":{"value":3}}`},
	} {
		if got := string(call([]byte(c.tool), []byte(c.args))); got != c.want {
			t.Errorf("call(%s, %s) =\n%s\nwant\n%s", c.tool, c.args, got, c.want)
		}
	}
}

// TestCallReusesBuffer: a result stays valid until the next call, which reuses its memory.
func TestCallReusesBuffer(t *testing.T) {
	first := call([]byte("t_text"), []byte(`{"expression":"one"}`))
	if got := string(first); got != `{"content":[{"type":"text","text":"<one>"}]}` {
		t.Fatalf("first call = %s", got)
	}
	second := call([]byte("t_text"), []byte(`{"expression":"two"}`))
	if &first[0] != &second[0] {
		t.Errorf("second result at a different address: the result buffer was not reused")
	}
}

// TestCallAllocs: the SDK adds no allocation to a raw tool's call, whatever the size.
func TestCallAllocs(t *testing.T) {
	for _, n := range []int{100, 1 << 20} {
		args := []byte(`{"text":"` + strings.Repeat("a", n) + `"}`)
		name := []byte("t_echo")
		call(name, args) // grow the result buffer
		if a := testing.AllocsPerRun(10, func() { call(name, args) }); a != 0 {
			t.Errorf("call of t_echo with %d bytes: %v allocations, want 0", len(args), a)
		}
	}
}

// TestTypedCallAllocs: a typed tool with flat input and output allocates only the copy of
// its string argument (its handler allocates nothing).
func TestTypedCallAllocs(t *testing.T) {
	name, args := []byte("t_struct"), []byte(`{"expression":"abc"}`)
	call(name, args)
	if a := testing.AllocsPerRun(10, func() { call(name, args) }); a != 1 {
		t.Errorf("call of t_struct: %v allocations, want 1", a)
	}
}

// TestAddToolSchemas: AddTool infers the schemas (natively, with jsonschema-go) and records
// them for schemagen.
func TestAddToolSchemas(t *testing.T) {
	wantIn := `{"type":"object","properties":{"expression":{"type":"string","description":"the expression"}},"required":["expression"],"additionalProperties":false}`
	wantOut := `{"type":"object","properties":{"value":{"type":"number"}},"required":["value"],"additionalProperties":false}`
	tools := map[string]abi.Tool{}
	for _, tl := range reg.manifest.Tools {
		tools[tl.Name] = tl
	}
	if got := string(tools["t_struct"].InputSchema); got != wantIn {
		t.Errorf("t_struct inputSchema = %s, want %s", got, wantIn)
	}
	if got := string(tools["t_struct"].OutputSchema); got != wantOut {
		t.Errorf("t_struct outputSchema = %s, want %s", got, wantOut)
	}
	if got := tools["t_text"].OutputSchema; got != nil {
		t.Errorf("t_text outputSchema = %s, want none (string output)", got)
	}
	if got := string(tools["t_echo"].InputSchema); got != `{"type":"object"}` {
		t.Errorf("t_echo inputSchema = %s, want {\"type\":\"object\"}", got)
	}
	if got, want := reg.inferred["t_struct"], (Schemas{Input: wantIn, Output: wantOut}); got != want {
		t.Errorf("inferred[t_struct] = %+v, want %+v", got, want)
	}
	if got, want := reg.inferred["t_text"], (Schemas{Input: wantIn}); got != want {
		t.Errorf("inferred[t_text] = %+v, want %+v", got, want)
	}
	if _, ok := reg.inferred["t_echo"]; ok {
		t.Errorf("inferred has t_echo, a raw tool")
	}
}

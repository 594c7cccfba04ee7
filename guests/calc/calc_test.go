package main

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
)

func TestCalcTool(t *testing.T) {
	out, err := Calc(context.Background(), Input{Expression: "2*(3+4)^2"})
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(out)
	if err != nil {
		t.Fatal(err)
	}
	// The SDK sends this JSON both as structuredContent and as the text block.
	if string(b) != `{"value":98}` {
		t.Errorf("got %s, want {\"value\":98}", b)
	}
	if _, err := Calc(context.Background(), Input{Expression: "1/0"}); err == nil || err.Error() != "division by zero" {
		t.Errorf("1/0: err = %v", err)
	}
}

func TestSchemas(t *testing.T) {
	in, err := jsonschema.For[Input](nil)
	if err != nil {
		t.Fatal(err)
	}
	if in.Type != "object" || len(in.Required) != 1 || in.Required[0] != "expression" ||
		in.Properties["expression"].Type != "string" || in.Properties["expression"].Description == "" {
		b, _ := json.Marshal(in)
		t.Errorf("input schema: %s", b)
	}
	out, err := jsonschema.For[Output](nil)
	if err != nil {
		t.Fatal(err)
	}
	if out.Properties["value"].Type != "number" {
		b, _ := json.Marshal(out)
		t.Errorf("output schema: %s", b)
	}
}

func TestExplainPrompt(t *testing.T) {
	got, err := explainPrompt("2*(3+4)^2")
	if want := "Explain step by step, following operator precedence, how 2*(3+4)^2 evaluates. The calculator's result is 98."; err != nil || got != want {
		t.Errorf("explainPrompt = %q, %v; want %q", got, err, want)
	}
	if _, err := explainPrompt("1/0"); err == nil || err.Error() != "division by zero" {
		t.Errorf("explainPrompt(1/0) error = %v", err)
	}
}

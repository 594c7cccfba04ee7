//go:build wasip1

package main

import (
	"context"
	"encoding/json"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/abi/guest"
)

func init() {
	guest.SetInfo("calc", "1.0.0", "Arithmetic without eval: a small allowlisted expression language.")
	guest.AddTool(abi.Tool{
		Name:  "calc",
		Title: "Calculator",
		Description: "Evaluates an arithmetic expression exactly as written, with no variables or eval: " +
			"numbers, + - * / % ^ (power, right-associative, binds tighter than unary minus so -2^2 = -4), " +
			"parentheses, sqrt abs min max floor ceil round, and the constants pi and e. " +
			"Division by zero and non-finite results are errors.",
		Annotations: json.RawMessage(`{"readOnlyHint":true,"idempotentHint":true,"openWorldHint":false}`),
	}, Calc)
	guest.AddResource(abi.Resource{URI: referenceURI, Name: "reference", Title: "calc language reference",
		Description: "Operators, functions, constants and limits of the calc tool.", MIMEType: "text/markdown"},
		func(ctx context.Context, uri string) (*abi.ResourceResult, error) {
			return &abi.ResourceResult{Contents: []abi.ResourceContents{{URI: uri, MIMEType: "text/markdown", Text: reference}}}, nil
		})
	guest.AddPrompt(abi.Prompt{Name: "explain", Title: "Explain an expression",
		Description: "Asks the model to explain step by step how an expression evaluates, with calc's answer to check against.",
		Arguments:   []abi.PromptArgument{{Name: "expression", Description: "the arithmetic expression", Required: true}}},
		func(ctx context.Context, args map[string]string) (*abi.PromptResult, error) {
			text, err := explainPrompt(args["expression"])
			if err != nil {
				return nil, invalidArguments{err}
			}
			return &abi.PromptResult{Messages: []abi.PromptMessage{{Role: "user", Content: abi.Content{Type: "text", Text: text}}}}, nil
		})
}

// invalidArguments is fmt.Errorf("%w: %v", guest.ErrInvalidArguments, err) without fmt,
// which the calc module does not link (guests/build.sh builds it with -tags mcpwasm_nojson).
type invalidArguments struct{ err error }

func (e invalidArguments) Error() string {
	return guest.ErrInvalidArguments.Error() + ": " + e.err.Error()
}
func (e invalidArguments) Unwrap() error { return guest.ErrInvalidArguments }

//go:build wasip1

package main

import (
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
}

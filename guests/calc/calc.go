package main

import (
	"context"

	"github.com/mcpwasm/mcpwasm/guests/calc/expr"
)

// Input is the calc tool's arguments.
type Input struct {
	Expression string `json:"expression" jsonschema:"arithmetic expression, at most 1024 bytes: numbers (42, 3.5, 1e3), + - * / % ^ (power, right-associative), parentheses, unary + and -, functions sqrt abs min max floor ceil round, constants pi and e; e.g. 2*(3+4)^2"`
}

// Output is the calc tool's structured result.
type Output struct {
	Value float64 `json:"value" jsonschema:"the value of the expression"`
}

// Calc is the calc tool's handler.
func Calc(_ context.Context, in Input) (Output, error) {
	v, err := expr.Eval(in.Expression)
	if err != nil {
		return Output{}, err
	}
	return Output{Value: v}, nil
}

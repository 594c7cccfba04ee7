package main

import (
	"errors"
	"strconv"

	"github.com/mcpwasm/mcpwasm/guests/calc/expr"
)

// referenceURI is the calc guest's one resource: the language it accepts.
const referenceURI = "calc://reference"

// reference is the text of referenceURI.
const reference = `# calc expression language

numbers      42, 3.5, 1e3, .5
operators    + - * / %   and ^ (power, right-associative; -2^2 = -4)
grouping     ( )
functions    sqrt(x) abs(x) floor(x) ceil(x) round(x) min(a, ...) max(a, ...)
constants    pi e
limits       at most 1024 bytes, nesting depth 64
errors       division by zero, sqrt of a negative number, non-finite results
`

// explainPrompt renders the "explain" prompt: a request to explain, step by step, how an
// expression evaluates, with the calculator's answer to check against.
func explainPrompt(expression string) (string, error) {
	if expression == "" {
		return "", errors.New("expression is empty")
	}
	v, err := expr.Eval(expression)
	if err != nil {
		return "", err
	}
	return "Explain step by step, following operator precedence, how " + expression + " evaluates. " +
		"The calculator's result is " + strconv.FormatFloat(v, 'g', -1, 64) + ".", nil
}

// Command calc is the mcpwasm "calc" guest: one tool, calc, that evaluates an arithmetic
// expression with a recursive-descent parser (never eval). Build it with guests/build.sh.
//
// The tool is registered in init (register.go, wasip1 only): a c-shared module never runs
// main. main exists so the package also builds natively for its unit tests.
package main

//go:generate go run github.com/mcpwasm/mcpwasm/abi/guest/schemagen

func main() {}

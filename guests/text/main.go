// Command text is the mcpwasm "text" guest: small read-only text tools (sha256, base64,
// regular expressions, counting, JSON path queries, echo). Build it with guests/build.sh.
//
// The tools are registered in init (register.go, wasip1 only): a c-shared module never runs
// main. main exists so the package also builds natively for its unit tests.
package main

//go:generate go run github.com/mcpwasm/mcpwasm/abi/guest/schemagen

func main() {}

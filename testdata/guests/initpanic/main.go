// Command initpanic is a test guest that panics while it starts (in a package init, as a
// guest SDK does when a tool's schema was not generated): the host must report what it wrote,
// not only the trap. runtime's TestStartFailureNamesGuestOutput builds it.
package main

import _ "github.com/mcpwasm/mcpwasm/abi/guest"

func init() {
	panic(`guest: tool "greet": no generated schema: run go generate`)
}

func main() {}

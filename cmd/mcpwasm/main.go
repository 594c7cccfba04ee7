// Command mcpwasm serves MCP tools that run as WebAssembly guests.
//
//	mcpwasm serve [flags] [GUEST.wasm …]   serve guests over MCP stdio (default: the bundled guests)
//	mcpwasm inspect [--json] GUEST.wasm    show a guest's manifest, tools, schemas and requests
//	mcpwasm version                        print versions
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

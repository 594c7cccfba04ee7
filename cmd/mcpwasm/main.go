// Command mcpwasm serves MCP tools that run as WebAssembly guests, and talks to MCP servers.
//
//	mcpwasm serve [flags] [GUEST.wasm …]   serve guests over MCP stdio (default: the bundled guests)
//	mcpwasm inspect [--json] GUEST.wasm    show a guest's manifest, tools, schemas and requests
//	mcpwasm tools|call|read|prompt …       MCP client commands
//	mcpwasm new go|c|rust|wat|ts|js NAME   create a guest project
//	mcpwasm help [COMMAND]                 the commands (commands.go), or one in detail
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

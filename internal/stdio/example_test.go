package stdio_test

import (
	"bytes"
	"context"
	"fmt"
	"log"
	"slices"
	"strings"

	"github.com/mcpwasm/mcpwasm/internal/stdio"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Serve an MCP server over newline-delimited JSON-RPC. A malformed line is answered with a
// parse error (-32700) and the session goes on; the next request is served.
func ExampleNewTransport() {
	server := mcp.NewServer(&mcp.Implementation{Name: "demo", Version: "1"}, nil)
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{not json`,
		`{"jsonrpc":"2.0","id":2,"method":"ping"}`,
	}, "\n") + "\n"
	var out bytes.Buffer
	if err := server.Run(context.Background(), stdio.NewTransport(strings.NewReader(in), &out, nil)); err != nil {
		log.Fatal(err)
	}
	// The parse error is written by the reader, the results by the server: their order varies.
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	slices.Sort(lines)
	for _, line := range lines {
		if !strings.Contains(line, `"id":1,`) { // skip initialize's result
			fmt.Println(line)
		}
	}
	// Output:
	// {"jsonrpc":"2.0","id":2,"result":{}}
	// {"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error: invalid character 'n' looking for beginning of object key string"}}
}

// Command wasiserver is a test fixture: a go-sdk MCP server built for wasip1 by the tests
// (GOOS=wasip1 GOARCH=wasm), served as a whole-server guest. Its first argument picks a
// misbehaviour: "exit" exits at start, "garbage" writes a line that is not JSON to stdout.
// Its tools: count (a per-process counter: the state a session keeps), spin (loops
// forever), alloc (allocates without end), process (its argv and environment), files (reads
// /data/in.txt, then tries to write /data/out.txt), sleep (300 ms by its clock).
package main

import (
	"context"
	"fmt"
	"log"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

var sink int

func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

func main() {
	if len(os.Args) > 1 {
		switch os.Args[1] {
		case "exit":
			fmt.Fprintln(os.Stderr, "wasiserver: told to exit at start")
			os.Exit(3)
		case "garbage":
			fmt.Println("hello from wasiserver, which is not JSON")
		}
	}
	server := mcp.NewServer(&mcp.Implementation{Name: "counter", Version: "1"}, nil)
	n := 0
	mcp.AddTool(server, &mcp.Tool{Name: "count", Description: "counts the calls of this process"},
		func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			n++
			return text(strconv.Itoa(n)), nil, nil
		})
	mcp.AddTool(server, &mcp.Tool{Name: "spin", Description: "loops forever"},
		func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			for i := 0; ; i++ {
				sink += i
			}
		})
	var keep [][]byte
	mcp.AddTool(server, &mcp.Tool{Name: "alloc", Description: "allocates without end"},
		func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			for {
				b := make([]byte, 1<<20)
				b[0] = 1
				keep = append(keep, b)
			}
		})
	mcp.AddTool(server, &mcp.Tool{Name: "process", Description: "its argv and environment"},
		func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			return text(strings.Join(os.Args, " ") + "|" + strings.Join(os.Environ(), ",")), nil, nil
		})
	mcp.AddTool(server, &mcp.Tool{Name: "files", Description: "reads /data/in.txt, writes /data/out.txt"},
		func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			b, rerr := os.ReadFile("/data/in.txt")
			werr := os.WriteFile("/data/out.txt", []byte("x"), 0o644)
			return text(fmt.Sprintf("read %q %v; write %v", b, rerr, werr)), nil, nil
		})
	mcp.AddTool(server, &mcp.Tool{Name: "sleep", Description: "sleeps 300 ms (by its clock)"},
		func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			start := time.Now()
			time.Sleep(300 * time.Millisecond)
			return text(fmt.Sprintf("slept %v", time.Since(start) >= 300*time.Millisecond)), nil, nil
		})
	if err := server.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		log.Printf("wasiserver: %v", err)
	}
}

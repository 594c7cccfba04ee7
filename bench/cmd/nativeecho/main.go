// Command nativeecho is the native baseline of the end-to-end benchmarks: an MCP server on
// the official Go SDK, over stdio, with one tool "echo" equivalent to the wasm echo guests
// (input {"text": string}, validated; the arguments come back as structured content plus a
// text block holding the same JSON). With -http ADDR it serves Streamable HTTP instead, with
// application/json responses, like `mcpwasm serve --http ADDR --json-response`.
package main

import (
	"context"
	"flag"
	"log"
	"net/http"
	"os"
	"os/signal"
	"syscall"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type echoArgs struct {
	Text string `json:"text"`
}

func main() {
	addr := flag.String("http", "", "serve MCP Streamable HTTP on `ADDR` instead of stdio")
	flag.Parse()
	s := mcp.NewServer(&mcp.Implementation{Name: "nativeecho", Version: "dev"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "Returns its arguments"},
		func(_ context.Context, _ *mcp.CallToolRequest, in echoArgs) (*mcp.CallToolResult, echoArgs, error) {
			return nil, in, nil
		})
	if *addr != "" {
		h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, &mcp.StreamableHTTPOptions{JSONResponse: true})
		hs := &http.Server{Addr: *addr, Handler: h}
		go func() {
			sig := make(chan os.Signal, 1)
			signal.Notify(sig, syscall.SIGTERM, os.Interrupt)
			<-sig
			hs.Close()
		}()
		if err := hs.ListenAndServe(); err != nil && err != http.ErrServerClosed {
			log.Fatal(err)
		}
		return
	}
	if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		log.Fatal(err)
	}
}

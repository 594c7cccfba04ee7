package upstream

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The tests spawn this test binary as an MCP server: TestMain runs fakeServer instead of the
// tests when fakeEnv names a mode. Everything stays on pipes (hermetic).
const fakeEnv = "MCPWASM_UPSTREAM_FAKE"

// gateEnv, for the sdk mode, names a directory: the server appends its pid to DIR/starts and
// writes gateTicks lines to stderr, gateTick apart, before it reads its input.
const gateEnv = "MCPWASM_UPSTREAM_GATE"

const (
	gateTicks = 200
	gateTick  = 10 * time.Millisecond
)

func TestMain(m *testing.M) {
	if mode := os.Getenv(fakeEnv); mode != "" {
		if strings.HasPrefix(mode, "sdk,") {
			sdkServer()
		} else {
			fakeServer(strings.Split(mode, ","))
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// fake returns a Spec that runs this binary as a fake server with the given modes.
func fake(t *testing.T, modes ...string) Spec {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	modes = append(modes, "plain") // never empty: an empty mode would run the tests again
	return Spec{Command: []string{"/usr/bin/env", fakeEnv + "=" + strings.Join(modes, ","), exe}}
}

type echoIn struct {
	Text string `json:"text"`
}

// sdkServer is a real go-sdk server (it answers server/discover) with tools echo and add and
// the resource template docs://{id}.
func sdkServer() {
	if dir := os.Getenv(gateEnv); dir != "" {
		// A server slow to start, as mcpwasm serve compiling its guests on a loaded machine:
		// it notes each start, then logs on stderr for twice the test's discover deadline
		// (gateTicks lines, gateTick apart) before it reads its input.
		f, err := os.OpenFile(filepath.Join(dir, "starts"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			os.Exit(3)
		}
		fmt.Fprintln(f, os.Getpid())
		f.Close()
		for i := range gateTicks {
			fmt.Fprintf(os.Stderr, "still starting (%d)\n", i)
			time.Sleep(gateTick)
		}
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "sdk-fake", Version: "1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "echoes"}, func(ctx context.Context, req *mcp.CallToolRequest, in echoIn) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Text}}}, nil, nil
	})
	type addIn struct {
		A float64 `json:"a"`
		B float64 `json:"b"`
	}
	mcp.AddTool(s, &mcp.Tool{Name: "add"}, func(ctx context.Context, req *mcp.CallToolRequest, in addIn) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprint(in.A + in.B)}}}, nil, nil
	})
	s.AddResourceTemplate(&mcp.ResourceTemplate{Name: "doc", URITemplate: "docs://{id}", MIMEType: "text/plain"},
		func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return nil, mcp.ResourceNotFoundError("")
		})
	_ = s.Run(context.Background(), &mcp.StdioTransport{})
}

// fakeServer is a hand-written NDJSON server for misbehaviours the SDK would not produce.
// It never answers server/discover (like a legacy server that ignores unknown methods).
// Modes:
//
//	noise       before every reply, a non-JSON line and a reply to an id never sent
//	badversion  initialize answers protocol version "1999-01-01"
//	silent      initialize is never answered
//	cursor      tools/list pages: [a b] next "c1", then [b c] next "c1" again
//	endless     tools/list always has a next page with a fresh cursor
//	crash       exit after answering the first tools/call
//	slow        tools/call "sleep" is never answered (the client cancels it)
//
// In every mode tools/call "exact" answers its arguments as structuredContent, verbatim,
// "pass" answers its arguments as the result, verbatim, and
// "env" answers the server's environment; "ask" sends roots/list, sampling/createMessage and
// elicitation/create to the client and answers with how each was answered ("r1 -32601");
// "caps" answers the capabilities of the client's initialize.
func fakeServer(modes []string) {
	has := func(m string) bool {
		for _, x := range modes {
			if x == m {
				return true
			}
		}
		return false
	}
	out := bufio.NewWriter(os.Stdout)
	reply := func(id json.RawMessage, result any) {
		if has("noise") {
			fmt.Fprintln(out, "this is not JSON: the server is chatty on stdout")
			fmt.Fprintln(out, `{"jsonrpc":"2.0","id":987654,"result":{}}`)
		}
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "result": result})
		out.Write(b)
		out.WriteByte('\n')
		out.Flush()
	}
	in := bufio.NewReaderSize(os.Stdin, 1<<20)
	page := 0
	var askID json.RawMessage      // the tools/call "ask" waiting for the client's answers
	var clientCaps json.RawMessage // capabilities of the client's initialize
	var answers []string
	for {
		line, err := in.ReadBytes('\n')
		if err != nil {
			return
		}
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Error  *struct {
				Code int `json:"code"`
			} `json:"error"`
			Params struct {
				ProtocolVersion string          `json:"protocolVersion"`
				Capabilities    json.RawMessage `json:"capabilities"`
				Cursor          string          `json:"cursor"`
				Name            string          `json:"name"`
				Arguments       json.RawMessage `json:"arguments"`
				RequestID       json.RawMessage `json:"requestId"`
			} `json:"params"`
		}
		if json.Unmarshal(line, &req) != nil {
			continue
		}
		if req.Method == "" && askID != nil { // the client's answer to one of ask's requests
			a := string(req.ID) + " ok"
			if req.Error != nil {
				a = fmt.Sprintf("%s %d", req.ID, req.Error.Code)
			}
			if answers = append(answers, a); len(answers) == 3 {
				sort.Strings(answers) // the client answers concurrently
				reply(askID, map[string]any{"content": []any{map[string]any{"type": "text", "text": strings.Join(answers, "\n")}}})
				askID, answers = nil, nil
			}
			continue
		}
		switch req.Method {
		case "initialize":
			if has("silent") {
				continue
			}
			v := req.Params.ProtocolVersion
			clientCaps = req.Params.Capabilities
			if has("badversion") {
				v = "1999-01-01"
			}
			reply(req.ID, map[string]any{"protocolVersion": v, "capabilities": map[string]any{"tools": map[string]any{}},
				"serverInfo": map[string]any{"name": "fake", "version": "1"}})
		case "tools/list":
			tool := func(n string) map[string]any {
				return map[string]any{"name": n, "inputSchema": map[string]any{"type": "object"}}
			}
			switch {
			case has("cursor") && req.Params.Cursor == "":
				reply(req.ID, map[string]any{"tools": []any{tool("a"), tool("b")}, "nextCursor": "c1"})
			case has("cursor"):
				reply(req.ID, map[string]any{"tools": []any{tool("b"), tool("c")}, "nextCursor": "c1"})
			case has("endless"):
				page++
				reply(req.ID, map[string]any{"tools": []any{tool(fmt.Sprint("t", page))}, "nextCursor": fmt.Sprint("p", page)})
			default:
				reply(req.ID, map[string]any{"tools": []any{tool("echo")}})
			}
		case "tools/call":
			switch req.Params.Name {
			case "sleep":
				continue
			case "exact": // the arguments back as structuredContent, byte for byte
				reply(req.ID, map[string]any{"content": []any{}, "structuredContent": req.Params.Arguments})
				continue
			case "pass": // the arguments back as the whole result, byte for byte
				reply(req.ID, req.Params.Arguments)
				continue
			case "ask": // server→client requests; the answer lists how the client answered each
				askID = req.ID
				for _, m := range []string{`"id":"r1","method":"roots/list"`,
					`"id":"r2","method":"sampling/createMessage","params":{"messages":[],"maxTokens":1}`,
					`"id":"r3","method":"elicitation/create","params":{"message":"?","requestedSchema":{"type":"object"}}`} {
					fmt.Fprintf(out, `{"jsonrpc":"2.0",%s}`+"\n", m)
				}
				out.Flush()
				continue
			case "caps": // the capabilities the client declared in initialize
				reply(req.ID, map[string]any{"content": []any{map[string]any{"type": "text", "text": string(clientCaps)}}})
				continue
			case "env": // our environment, one variable a line
				reply(req.ID, map[string]any{"content": []any{map[string]any{"type": "text", "text": strings.Join(os.Environ(), "\n")}}})
				continue
			}
			var a struct {
				Text  string `json:"text"`
				Bytes int    `json:"bytes"`
			}
			_ = json.Unmarshal(req.Params.Arguments, &a)
			if a.Bytes > 0 {
				a.Text = strings.Repeat("x", a.Bytes)
			}
			reply(req.ID, map[string]any{"content": []any{map[string]any{"type": "text", "text": a.Text}}})
			if has("crash") {
				os.Exit(3)
			}
		case "notifications/cancelled":
			fmt.Fprintf(os.Stderr, "cancelled %s\n", req.Params.RequestID)
		case "ping":
			reply(req.ID, map[string]any{})
		}
	}
}

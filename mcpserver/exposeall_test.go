package mcpserver_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mcpwasm/mcpwasm/mcpserver"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// rawUpstream answers each request of a client connected to the returned session with the
// JSON result answers holds for its method (method not found otherwise): an upstream that
// lists what no SDK server would.
func rawUpstream(t *testing.T, answers map[string]string) *mcp.ClientSession {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	st, ct := mcp.NewInMemoryTransports()
	conn, err := st.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		for {
			msg, err := conn.Read(ctx)
			if err != nil {
				return
			}
			req, ok := msg.(*jsonrpc.Request)
			if !ok || !req.IsCall() {
				continue
			}
			resp := &jsonrpc.Response{ID: req.ID}
			if a, ok := answers[req.Method]; ok {
				resp.Result = json.RawMessage(a)
			} else {
				resp.Error = &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: "no " + req.Method}
			}
			if conn.Write(ctx, resp) != nil {
				return
			}
		}
	}()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "gw", Version: "1"}, nil).Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// A resource URI or template the SDK would panic on (AddResource, AddResourceTemplate), and
// a prompt without a name, are withheld with a warning: an upstream's lists cannot stop the
// server. What is valid beside them is served.
func TestExposeAllWithholdsWhatTheSDKCannotServe(t *testing.T) {
	cs := rawUpstream(t, map[string]string{
		"initialize":               `{"protocolVersion":"2025-11-25","capabilities":{"tools":{},"prompts":{},"resources":{}},"serverInfo":{"name":"raw","version":"1"}}`,
		"tools/list":               `{"tools":[]}`,
		"prompts/list":             `{"prompts":[{"name":""},{"name":"ok"}]}`,
		"resources/list":           `{"resources":[{"uri":"note://%zz","name":"bad"},{"uri":"note://fine","name":"fine"}]}`,
		"resources/templates/list": `{"resourceTemplates":[{"uriTemplate":"note://{","name":"bad"},{"uriTemplate":"note://t/{id}","name":"fine"}]}`,
	})
	logs := &syncBuf{}
	s := mcp.NewServer(&mcp.Implementation{Name: "gw", Version: "1"}, nil)
	if _, err := mcpserver.Expose(context.Background(), s, "raw", cs, &mcpserver.ExposeOptions{All: true, Logger: slog.New(slog.NewTextHandler(logs, nil))}); err != nil {
		t.Fatal(err)
	}
	c := connectClient(t, s)
	ctx := context.Background()
	var got []string
	for p, err := range c.Prompts(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, "prompt "+p.Name)
	}
	for r, err := range c.Resources(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, "resource "+r.URI)
	}
	for r, err := range c.ResourceTemplates(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, "template "+r.URITemplate)
	}
	if diff := cmp.Diff([]string{"prompt raw__ok", "resource note://fine", "template note://t/{id}"}, got); diff != "" {
		t.Errorf("served (-want +got):\n%s", diff)
	}
	for _, want := range []string{
		`msg="gateway: prompt withheld: the MCP SDK cannot serve it" upstream=raw prompt="" problem="name is empty"`,
		`msg="gateway: resource withheld: the MCP SDK cannot serve it" upstream=raw uri=note://%zz problem="uri is not a URI: parse \"note://%zz\": invalid URL escape \"%zz\""`,
		`msg="gateway: resource template withheld: the MCP SDK cannot serve it" upstream=raw template=note://{ problem="uriTemplate is not an RFC 6570 URI template: incomplete expression: note://{_"`,
	} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("log lacks %s:\n%s", want, logs)
		}
	}
}

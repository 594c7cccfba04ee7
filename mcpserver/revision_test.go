package mcpserver_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/mcpwasm/mcpwasm/mcpserver"
	"github.com/mcpwasm/mcpwasm/runtime"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// oneToolGuest loads a guest "g<i>" whose one tool, name, declares outputSchema (none if "")
// and returns res.
func oneToolGuest(t *testing.T, h *runtime.Host, i int, name, outputSchema, res string) *runtime.Guest {
	t.Helper()
	tool := `{"name":"` + name + `","inputSchema":{"type":"object"}`
	if outputSchema != "" {
		tool += `,"outputSchema":` + outputSchema
	}
	man := fmt.Sprintf(`{"name":"g%d","version":"1","tools":[%s}]}`, i, tool)
	return loadGuest(t, h, manifestGuestResult(man, res), "")
}

// connectVersion connects an SDK client that asks for version ("" lets it negotiate its newest).
func connectVersion(t *testing.T, s *mcp.Server, version string) *mcp.ClientSession {
	t.Helper()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	var so *mcp.ClientSessionOptions
	if version != "" {
		so = &mcp.ClientSessionOptions{ProtocolVersion: version}
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, nil).Connect(context.Background(), ct, so)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func jsonOf(t *testing.T, v any) string {
	t.Helper()
	if v == nil {
		return "<absent>"
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestNonObjectStructuredContentByRevision (wave3 N15): up to 2025-11-25 structuredContent is
// an object; a guest's array or string is dropped for such a session, its text kept, and
// sent as is from 2026-07-28 (SEP-2106). An object passes unchanged everywhere.
func TestNonObjectStructuredContentByRevision(t *testing.T) {
	h := newHost(t)
	tools := []struct{ name, sc, content string }{
		{"arr", `[1,2,3]`, `[{"type":"text","text":"[1,2,3]"}]`},
		{"str", `"hello"`, `[{"type":"text","text":"\"hello\""}]`},
		// Siblings: a number, and a non-object with no content blocks (its JSON becomes the text).
		{"num", `5`, `[{"type":"text","text":"5"}]`},
		{"bare", `[true]`, ``},
		{"obj", `{"a":1}`, `[{"type":"text","text":"{\"a\":1}"}]`},
	}
	var guests []*runtime.Guest
	for i, tt := range tools {
		res := `{"structuredContent":` + tt.sc
		if tt.content != "" {
			res += `,"content":` + tt.content
		}
		guests = append(guests, oneToolGuest(t, h, i, tt.name, "", res+`}`))
	}
	s, err := mcpserver.NewServer(guests, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, version := range []string{"2025-06-18", "2025-11-25", ""} {
		cs := connectVersion(t, s, version)
		negotiated := cs.InitializeResult().ProtocolVersion
		for _, tt := range tools {
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tt.name})
			if err != nil || res.IsError {
				t.Fatalf("%s %s: %v %+v", negotiated, tt.name, err, res)
			}
			want := tt.sc
			if tt.name != "obj" && !mcpserver.ProtocolAtLeast(negotiated, "2026-07-28") {
				want = "<absent>"
			}
			if got := jsonOf(t, res.StructuredContent); got != want {
				t.Errorf("%s %s: structuredContent = %s, want %s", negotiated, tt.name, got, want)
			}
			if len(res.Content) != 1 || res.Content[0].(*mcp.TextContent).Text != tt.sc {
				t.Errorf("%s %s: content = %s, want the text %s", negotiated, tt.name, jsonOf(t, res.Content), tt.sc)
			}
		}
		if version == "" && negotiated != "2026-07-28" {
			t.Fatalf("the SDK client negotiated %s, want 2026-07-28 for the newest", negotiated)
		}
	}
}

// TestNonObjectOutputSchemaByRevision (wave3 N16): up to 2025-11-25 Tool.outputSchema is
// {"type":"object",…}; a tool whose schema root is anything else is listed without it to
// such a session, and with it from 2026-07-28.
func TestNonObjectOutputSchemaByRevision(t *testing.T) {
	h := newHost(t)
	tools := []struct{ name, schema string }{
		{"list_ids", `{"type":"array","items":{"type":"integer"}}`},
		{"either", `{"oneOf":[{"type":"object","properties":{"a":{"type":"string"}}},{"type":"object","properties":{"b":{"type":"integer"}}}]}`},
		// Siblings: a type list including object, and a scalar root.
		{"maybe", `{"type":["object","null"]}`},
		{"count", `{"type":"integer"}`},
		{"obj", `{"type":"object","properties":{"n":{"type":"integer"}}}`},
		{"none", ``},
	}
	var guests []*runtime.Guest
	for i, tt := range tools {
		guests = append(guests, oneToolGuest(t, h, i, tt.name, tt.schema, `{"content":[{"type":"text","text":"ok"}]}`))
	}
	s, err := mcpserver.NewServer(guests, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, version := range []string{"2025-06-18", "2025-11-25", ""} {
		cs := connectVersion(t, s, version)
		negotiated := cs.InitializeResult().ProtocolVersion
		res, err := cs.ListTools(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]string{}
		for _, tl := range res.Tools {
			got[tl.Name] = ""
			if tl.OutputSchema != nil {
				got[tl.Name] = jsonOf(t, tl.OutputSchema)
			}
		}
		want := map[string]string{}
		for _, tt := range tools {
			want[tt.name] = tt.schema
			if !mcpserver.ProtocolAtLeast(negotiated, "2026-07-28") && tt.name != "obj" {
				want[tt.name] = ""
			}
		}
		// Compare decoded schemas: the client re-encodes them with its own key order.
		norm := func(m map[string]string) map[string]any {
			out := map[string]any{}
			for k, v := range m {
				var x any
				if v != "" {
					if err := json.Unmarshal([]byte(v), &x); err != nil {
						t.Fatal(err)
					}
				}
				out[k] = x
			}
			return out
		}
		if d := cmp.Diff(norm(want), norm(got)); d != "" {
			t.Errorf("%s: listed outputSchemas (-want +got):\n%s", negotiated, d)
		}
	}
	// The registered tools are untouched: a 2026-07-28 session after the older ones still
	// sees the array schema (checked in the loop's last round), and so does the next one.
	cs := connectVersion(t, s, "")
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range res.Tools {
		if tl.Name == "list_ids" && tl.OutputSchema == nil {
			t.Error("list_ids lost its outputSchema for a 2026-07-28 session")
		}
	}
}

// TestContentBlockRequiredFields (wave3 N18): a guest's content block without a field the MCP
// schema requires is a tool error naming the block and the field, never forwarded.
func TestContentBlockRequiredFields(t *testing.T) {
	tests := []struct{ name, block, want string }{
		// The report's cases.
		{"img_nomime", `{"type":"image","data":"iVBORw0KGgo="}`, "content[0] (image): mimeType is missing"},
		{"audio_nomime", `{"type":"audio","data":"UklGRg=="}`, "content[0] (audio): mimeType is missing"},
		{"link_noname", `{"type":"resource_link","uri":"file:///tmp/x.txt"}`, "content[0] (resource_link): name is missing"},
		// Siblings.
		{"img_emptymime", `{"type":"image","data":"iVBORw0KGgo=","mimeType":""}`, "content[0] (image): mimeType is empty"},
		{"img_nodata", `{"type":"image","mimeType":"image/png"}`, "content[0] (image): data is missing"},
		{"link_nouri", `{"type":"resource_link","name":"x"}`, "content[0] (resource_link): uri is missing"},
		{"link_emptyname", `{"type":"resource_link","uri":"file:///x","name":""}`, "content[0] (resource_link): name is empty"},
		{"text_notext", `{"type":"text"}`, "content[0] (text): text is missing"},
		{"res_none", `{"type":"resource"}`, "content[0] (resource): resource is missing"},
		{"res_nouri", `{"type":"resource","resource":{"text":"x"}}`, "content[0] (resource): resource.uri is missing"},
		{"res_nobody", `{"type":"resource","resource":{"uri":"file:///x"}}`, "content[0] (resource): resource has neither text nor blob"},
		{"second_block", `{"type":"text","text":"a"},{"type":"audio","data":"UklGRg==","mimeType":null}`, "content[1] (audio): mimeType is missing"},
		// Controls.
		{"img_ok", `{"type":"image","data":"iVBORw0KGgo=","mimeType":"image/png"}`, ""},
		{"link_ok", `{"type":"resource_link","uri":"file:///tmp/x.txt","name":"x.txt"}`, ""},
		{"text_empty", `{"type":"text","text":""}`, ""},
		{"res_ok", `{"type":"resource","resource":{"uri":"file:///x","blob":"AA=="}}`, ""},
	}
	cases := make([]struct{ name, result, want string }, len(tests))
	for i, tt := range tests {
		cases[i].name, cases[i].result, cases[i].want = tt.name, `{"content":[`+tt.block+`]}`, tt.want
	}
	expectResults(t, cases) // result_test.go
}

// TestProgressMustIncrease (wave3 N17): "The progress value MUST increase with each
// notification": reports 5, 3, 3, 7 reach the client as 5, 7.
func TestProgressMustIncrease(t *testing.T) {
	for _, tc := range []struct {
		reports []float64
		want    []float64
	}{
		{[]float64{5, 3, 3, 7}, []float64{5, 7}},
		{[]float64{0, 0, 1, 0.5, 1.5}, []float64{0, 1, 1.5}}, // sibling: a repeated first value, fractions
	} {
		s, err := mcpserver.NewServer(nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		s.AddTool(&mcp.Tool{Name: "wobbly", InputSchema: map[string]any{"type": "object"}}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			hooks := mcpserver.CallHooks(ctx, req)
			for _, p := range tc.reports {
				hooks.Progress(p, 10, "")
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil
		})
		var mu sync.Mutex
		var got []float64
		arrived := make(chan struct{}, 16)
		st, ct := mcp.NewInMemoryTransports()
		if _, err := s.Connect(context.Background(), st, nil); err != nil {
			t.Fatal(err)
		}
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, &mcp.ClientOptions{
			ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
				mu.Lock()
				got = append(got, r.Params.Progress)
				mu.Unlock()
				arrived <- struct{}{}
			}}).Connect(context.Background(), ct, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
		if err != nil {
			t.Fatal(err)
		}
		p := &mcp.CallToolParams{Name: "wobbly"}
		p.SetProgressToken("t")
		if _, err := cs.CallTool(context.Background(), p); err != nil {
			t.Fatal(err)
		}
		// Notifications may be handled after the response: wait for the ones expected (a
		// generous bound, only against a hang), then check no others came.
		for range tc.want {
			select {
			case <-arrived:
			case <-time.After(20 * time.Second):
				t.Fatalf("reports %v: only %v arrived", tc.reports, got)
			}
		}
		if err := cs.Ping(context.Background(), nil); err != nil {
			t.Fatal(err)
		}
		cs.Close()
		mu.Lock()
		if d := cmp.Diff(tc.want, got); d != "" {
			t.Errorf("reports %v: progress sent (-want +got):\n%s", tc.reports, d)
		}
		mu.Unlock()
	}
}

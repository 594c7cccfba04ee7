package mcpserver_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/mcpwasm/mcpwasm/mcpserver"
	"github.com/mcpwasm/mcpwasm/runtime"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// rawToolCall calls tool on s over an in-memory connection without a client's decoding and
// returns the result's JSON as the server sent it.
func rawToolCall(t *testing.T, s *mcp.Server, tool string) string {
	t.Helper()
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	conn, err := ct.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	send := func(id int64, method, params string) {
		msg := &jsonrpc.Request{Method: method, Params: json.RawMessage(params)}
		if id != 0 {
			msg.ID, _ = jsonrpc.MakeID(float64(id))
		}
		if err := conn.Write(ctx, msg); err != nil {
			t.Fatal(err)
		}
	}
	read := func() *jsonrpc.Response {
		for {
			msg, err := conn.Read(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if r, ok := msg.(*jsonrpc.Response); ok {
				return r
			}
		}
	}
	send(1, "initialize", `{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}`)
	read()
	send(0, "notifications/initialized", `{}`)
	send(2, "tools/call", `{"name":"`+tool+`","arguments":{}}`)
	r := read()
	if r.Error != nil {
		t.Fatal(r.Error)
	}
	return string(r.Result)
}

// TestResultBlockMetaExact (fresh-eyes 1): the _meta of a content block and of an embedded
// resource reach the client with every number as the guest wrote it — above 2^53, beyond
// float64 (1e400), more digits than float64 keeps — as structuredContent and the top-level
// _meta already did.
func TestResultBlockMetaExact(t *testing.T) {
	result := `{"content":[{"type":"text","text":"a","_meta":{"k":9007199254740993,"e":1e400}},` +
		`{"type":"resource","resource":{"uri":"x://r","text":"t","_meta":{"big":12345678901234567890}},"_meta":{"f":1.0000000000000000001}}],` +
		`"structuredContent":{"n":9007199254740993}}`
	h := newHost(t)
	s, err := mcpserver.NewServer([]*runtime.Guest{oneToolGuest(t, h, 0, "pass", "", result)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := rawToolCall(t, s, "pass")
	for _, want := range []string{
		`"_meta":{"e":1e400,"k":9007199254740993}`,
		`"resource":{"uri":"x://r","text":"t","_meta":{"big":12345678901234567890}}`,
		`"_meta":{"f":1.0000000000000000001}`,
		`"structuredContent":{"n":9007199254740993}`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("result %s\nlacks %s", got, want)
		}
	}
	if strings.Contains(got, `"isError":true`) {
		t.Errorf("refused: %s", got)
	}
}

// TestResultRefusedReadably (fresh-eyes 2, 3, 4): a guest's result that is not a
// CallToolResult is a tool error whose reason names the member by its path and says what was
// wanted — a duplicate key at any depth, an unknown block type before its fields, a wrong
// type, a non-object, bad base64 with its block — never a Go type name or the rest of the
// input.
func TestResultRefusedReadably(t *testing.T) {
	tests := []struct{ name, result, want string }{
		// 2: duplicate keys, last-wins would let these through.
		{"dup_iserror", `{"content":[{"type":"text","text":"A"}],"isError":true,"isError":false}`, `isError: duplicate key "isError"`},
		{"dup_text", `{"content":[{"type":"text","text":"A","text":"B"}]}`, `content[0].text: duplicate key "text"`},
		{"dup_content", `{"content":[{"type":"text","text":"A"}],"content":[{"type":"text","text":"B"}]}`, `content: duplicate key "content"`},
		{"dup_sc", `{"content":[],"structuredContent":{"n":"not-an-int","n":1}}`, `structuredContent.n: duplicate key "n"`},
		{"dup_sc_deep", `{"structuredContent":{"a":[{"b":{"c":1,"\u0063":2}}]}}`, `structuredContent.a[0].b.c: duplicate key "c"`},
		{"dup_meta", `{"content":[],"_meta":{"x":1,"x":2}}`, `_meta.x: duplicate key "x"`},
		{"dup_block_meta", `{"content":[{"type":"text","text":"a","_meta":{"x":{"y":1,"y":1}}}]}`, `content[0]._meta.x.y: duplicate key "y"`},
		// 3: an unknown block type is told before its fields.
		{"video", `{"content":[{"type":"video","data":"x"}]}`, `content[0]: unknown type "video"`},
		{"video_nodata", `{"content":[{"type":"video"}]}`, `content[0]: unknown type "video"`},
		{"type_number", `{"content":[{"type":7,"text":"x"}]}`, `content[0].type: a number, want a string`},
		{"type_missing", `{"content":[{"text":"x"}]}`, `content[0]: type is missing`},
		// 4: wrong types by path.
		{"text_number", `{"content":[{"type":"text","text":42}]}`, `content[0].text: a number, want a string`},
		{"iserror_string", `{"content":[],"isError":"true"}`, `isError: a string, want true or false`},
		{"priority_string", `{"content":[{"type":"text","text":"x","annotations":{"priority":"high"}}]}`, `content[0].annotations.priority: a string, want a number from 0 to 1`},
		{"priority_huge", `{"content":[{"type":"text","text":"x","annotations":{"priority":1e400}}]}`, `content[0].annotations.priority: 1e400, want a number from 0 to 1`},
		{"audience_robot", `{"content":[{"type":"text","text":"x","annotations":{"audience":["user","robot"]}}]}`, `content[0].annotations.audience[1]: want "user" or "assistant"`},
		{"size_fraction", `{"content":[{"type":"resource_link","uri":"x://a","name":"a","size":1.5}]}`, `content[0].size: 1.5, want an integer`},
		{"content_object", `{"content":{"type":"text","text":"x"}}`, `content: an object, want an array`},
		{"content_string", `{"content":"x"}`, `content: a string, want an array`},
		{"block_string", `{"content":["x"]}`, `content[0]: a string, want an object`},
		{"meta_number", `{"content":[],"_meta":5}`, `_meta: a number, want an object`},
		{"block_meta_array", `{"content":[{"type":"text","text":"x","_meta":[]}]}`, `content[0]._meta: an array, want an object`},
		{"top_number", `42`, `the result is a number, want an object`},
		{"top_array", `[]`, `the result is an array, want an object`},
		{"top_null", `null`, `the result is null, want an object`},
		{"base64", `{"content":[{"type":"text","text":"a"},{"type":"image","data":"!!","mimeType":"image/png"}]}`, `content[1] (image): data is not base64: illegal base64 data at input byte 0`},
		{"blob_base64", `{"content":[{"type":"resource","resource":{"uri":"x://a","blob":"%"}}]}`, `content[0] (resource): resource.blob is not base64: illegal base64 data at input byte 0`},
		// Controls: a text block's member of another type is dropped, not refused.
		{"text_with_data", `{"content":[{"type":"text","text":"x","data":"!!","size":"big"}]}`, ""},
		{"priority_ok", `{"content":[{"type":"text","text":"x","annotations":{"priority":0.5,"audience":["assistant"]}}]}`, ""},
	}
	expectResults(t, tests)
}

// expectResults serves one guest per case, tool name, returning its result, and checks
// each call over the 2025-11-25 revision: the malformed-result tool error want names, or
// (want "") the result forwarded.
func expectResults(t *testing.T, tests []struct{ name, result, want string }) {
	t.Helper()
	h := newHost(t)
	var guests []*runtime.Guest
	for i, tt := range tests {
		guests = append(guests, oneToolGuest(t, h, i, tt.name, "", tt.result))
	}
	s, err := mcpserver.NewServer(guests, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs := connectVersion(t, s, "2025-11-25")
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tt.name})
			if err != nil {
				t.Fatal(err)
			}
			if tt.want == "" {
				if res.IsError {
					t.Fatalf("control refused: %s", jsonOf(t, res.Content))
				}
				return
			}
			want := fmt.Sprintf("guest %q tool %q: ABI violation: malformed result: %s", fmt.Sprintf("g%d", i), tt.name, tt.want)
			if !res.IsError || len(res.Content) != 1 || res.Content[0].(*mcp.TextContent).Text != want {
				t.Errorf("result = %s (isError %v)\nwant the tool error %q", jsonOf(t, res.Content), res.IsError, want)
			}
		})
	}
}

// TestDuplicateKeyCannotPassOutputSchema (fresh-eyes 2): {"n":"not-an-int","n":1} is refused
// before the outputSchema check, which would see only the last n.
func TestDuplicateKeyCannotPassOutputSchema(t *testing.T) {
	h := newHost(t)
	g := oneToolGuest(t, h, 0, "n", `{"type":"object","properties":{"n":{"type":"integer"}}}`, `{"content":[],"structuredContent":{"n":"not-an-int","n":1}}`)
	s, err := mcpserver.NewServer([]*runtime.Guest{g}, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := connectVersion(t, s, "2025-11-25").CallTool(context.Background(), &mcp.CallToolParams{Name: "n"})
	if err != nil {
		t.Fatal(err)
	}
	want := `guest "g0" tool "n": ABI violation: malformed result: structuredContent.n: duplicate key "n"`
	if !res.IsError || res.Content[0].(*mcp.TextContent).Text != want {
		t.Errorf("result = %s (isError %v), want the tool error %q", jsonOf(t, res.Content), res.IsError, want)
	}
}

package mcpserver_test

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwasm/mcpwasm/mcpserver"
	"github.com/mcpwasm/mcpwasm/runtime"
)

// extismPlugin reads an Extism test plugin of runtime/internal/kind/extism/testdata with each
// pair of same-length byte strings replaced (each must occur exactly once).
func extismPlugin(t *testing.T, file string, pairs ...string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "runtime", "internal", "kind", "extism", "testdata", file))
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < len(pairs); i += 2 {
		from, to := pairs[i], pairs[i+1]
		if len(from) != len(to) || bytes.Count(b, []byte(from)) != 1 {
			t.Fatalf("%s: cannot patch %q", file, from)
		}
		b = bytes.Replace(b, []byte(from), []byte(to), 1)
	}
	return b
}

// v2.wasm serves tools echo and fail, prompt greet, resource mem://readme and template
// mem://notes/{id}; these patches rename each away, so a copy keeps only what a test leaves.
var (
	otherTools    = []string{`"name":"echo"`, `"name":"ech0"`, `"name":"fail"`, `"name":"fai1"`}
	otherPrompt   = []string{`"name":"greet"`, `"name":"greeT"`}
	otherResource = []string{`mem://readme`, `mem://readmE`}
	otherTemplate = []string{`mem://notes/{id}`, `mem://noteS/{id}`}
)

func concat(lists ...[]string) []string {
	var out []string
	for _, l := range lists {
		out = append(out, l...)
	}
	return out
}

// Two guests serving the same prompt name, resource URI or resource template (also one
// whose variables are named otherwise: it matches the same URIs) are refused at start, as
// tool names are, naming both; nothing of the second is served.
func TestShadowRefusedAtStart(t *testing.T) {
	h := newHost(t)
	good := extismPlugin(t, "v2.wasm")
	for _, c := range []struct {
		name  string
		patch []string
		want  string
	}{
		{"prompt", concat(otherTools, otherResource, otherTemplate),
			`prompt "greet" of guest "evil" is already provided by guest "good"` + prefixHint},
		{"resource", concat(otherTools, otherPrompt, otherTemplate),
			`resource "mem://readme" of guest "evil" is already provided by guest "good"; a tool prefix does not rewrite resource URIs: serve only one of them`},
		{"template", concat(otherTools, otherPrompt, otherResource),
			`resource template "mem://notes/{id}" of guest "evil" is already provided by guest "good"; a tool prefix does not rewrite resource URIs: serve only one of them`},
		{"template variables renamed", concat(otherTools, otherPrompt, otherResource, []string{`{id}`, `{no}`}),
			`resource template "mem://notes/{no}" of guest "evil" is already provided by guest "good"; a tool prefix does not rewrite resource URIs: serve only one of them`},
	} {
		t.Run(c.name, func(t *testing.T) {
			g := loadExtism(t, h, good, "good", "")
			e := loadExtism(t, h, extismPlugin(t, "v2.wasm", c.patch...), "evil", "")
			_, err := mcpserver.NewServer([]*runtime.Guest{g, e}, nil)
			if err == nil || err.Error() != c.want {
				t.Fatalf("NewServer error = %v; want %q", err, c.want)
			}
		})
	}
}

// tool_prefix covers prompts: two guests with the same prompt are served side by side, the
// prefixed one under its prefix, and prompts/get of each answers with its own guest (which
// still sees its own name). Resource URIs are never rewritten, so the copies differ in them.
func TestPrefixCoversPrompts(t *testing.T) {
	h := newHost(t)
	g := loadExtism(t, h, extismPlugin(t, "v2.wasm"), "good", "")
	e := loadExtism(t, h, extismPlugin(t, "v2.wasm", concat(otherResource, otherTemplate, []string{`"text":"hello `, `"text":"EVIL! `})...), "evil", "e-")
	s, err := mcpserver.NewServer([]*runtime.Guest{g, e}, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs := connect(t, s)
	for name, want := range map[string]string{"greet": "hello bob", "e-greet": "EVIL! bob"} {
		r, err := cs.GetPrompt(context.Background(), &mcp.GetPromptParams{Name: name, Arguments: map[string]string{"who": "bob"}})
		if err != nil {
			t.Fatalf("prompts/get %s: %v", name, err)
		}
		if got := r.Messages[0].Content.(*mcp.TextContent).Text; !strings.HasPrefix(got, want) {
			t.Errorf("prompts/get %s = %q; want %q…", name, got, want)
		}
	}
}

// A plugin whose relist names another guest's prompt (dyn.wasm lists prompt "more" after
// its first "grow") is refused at run time: the owner keeps answering prompts/get, and a
// warning naming both is logged.
func TestShadowRefusedAtRelist(t *testing.T) {
	ctx := context.Background()
	h := newHost(t)
	var logBuf syncBuffer
	logger := slog.New(slog.NewTextHandler(&logBuf, nil))
	owner := loadExtism(t, h, extismPlugin(t, "v2.wasm", concat(otherResource, otherTemplate, []string{`"name":"greet"`, `"name":"more" `})...), "owner", "")
	dyn := loadExtism(t, h, extismPlugin(t, "dyn.wasm"), "dyn", "")
	s, err := mcpserver.NewServer([]*runtime.Guest{dyn, owner}, &mcpserver.Options{Logger: logger})
	if err != nil {
		t.Fatal(err)
	}
	cs := connect(t, s)
	get := func() string {
		r, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "more", Arguments: map[string]string{"who": "bob"}})
		if err != nil {
			t.Fatalf("prompts/get more: %v", err)
		}
		return r.Messages[0].Content.(*mcp.TextContent).Text
	}
	if got := get(); !strings.HasPrefix(got, "hello bob") {
		t.Fatalf("before: prompts/get more = %q", got)
	}
	if r, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "grow"}); err != nil || r.IsError {
		t.Fatalf("grow: %+v %v", r, err)
	}
	if got := get(); !strings.HasPrefix(got, "hello bob") {
		t.Errorf("after dyn's relist: prompts/get more = %q; want the owner's answer", got)
	}
	want := `prompt \"more\" of guest \"dyn\" is already provided by guest \"owner\"`
	if log := logBuf.String(); !strings.Contains(log, "keeps serving the old ones") || !strings.Contains(log, want) {
		t.Errorf("log lacks the refusal %s:\n%s", want, log)
	}
}

func loadExtism(t *testing.T, h *runtime.Host, wasm []byte, name, prefix string) *runtime.Guest {
	t.Helper()
	g, err := h.Load(context.Background(), wasm, &runtime.GuestConfig{Name: name, ToolPrefix: prefix, Isolation: "shared", Limits: runtime.Limits{Instances: 1}})
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func connect(t *testing.T, s *mcp.Server) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "0"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// A reload to a version without prompts and resources removes the old version's and releases
// their names: another guest may then serve them.
func TestReplaceGuestDropsFeatures(t *testing.T) {
	ctx := context.Background()
	h := newHost(t)
	names := &mcpserver.NameSet{}
	old := loadExtism(t, h, extismPlugin(t, "v2.wasm"), "p", "")
	s, err := mcpserver.NewServer([]*runtime.Guest{old}, &mcpserver.Options{Names: names})
	if err != nil {
		t.Fatal(err)
	}
	next := loadGuest(t, h, extismPlugin(t, "v1.wasm"), "p")
	if _, err := mcpserver.ReplaceGuest(s, old, next, &mcpserver.GuestOptions{Names: names}); err != nil {
		t.Fatal(err)
	}
	cs := connect(t, s)
	if r, err := cs.ListResources(ctx, nil); err == nil && len(r.Resources) > 0 {
		t.Errorf("resources after the reload: %v", r.Resources[0].URI)
	}
	if r, err := cs.ListPrompts(ctx, nil); err == nil && len(r.Prompts) > 0 {
		t.Errorf("prompts after the reload: %v", r.Prompts[0].Name)
	}
	other := loadExtism(t, h, extismPlugin(t, "v2.wasm", otherTools...), "other", "")
	if err := mcpserver.AddGuest(s, other, &mcpserver.GuestOptions{Names: names}); err != nil {
		t.Errorf("the old version's prompt and resources were not released: %v", err)
	}
}

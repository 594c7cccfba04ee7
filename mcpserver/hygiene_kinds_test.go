package mcpserver_test

import (
	"bytes"
	"context"
	"log/slog"
	"slices"
	"strings"
	"testing"

	"github.com/mcpwasm/mcpwasm/mcpserver"
	"github.com/mcpwasm/mcpwasm/runtime"
	"github.com/mcpwasm/mcpwasm/testdata/wat"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Every kind of invisible text is withheld, in every text a client shows a model: tools,
// prompts (and their arguments), resources and resource templates (reproducer
// hygiene-bypass). The clean ones are served and still answer.
func TestHygieneEveryKindAndFeature(t *testing.T) {
	ctx := context.Background()
	h, err := runtime.NewHost(ctx, &runtime.Options{NoDiskCache: true})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close(ctx)
	g, err := h.Load(ctx, wat.Hygiene, nil)
	if err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	s := mcp.NewServer(&mcp.Implementation{Name: "t", Version: "0"}, nil)
	if err := mcpserver.AddGuest(s, g, &mcpserver.GuestOptions{Logger: slog.New(slog.NewTextHandler(&logs, nil))}); err != nil {
		t.Fatal(err)
	}
	st, ct := mcp.NewInMemoryTransports()
	if _, err := s.Connect(ctx, st, nil); err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "0"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()

	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range tools.Tools {
		names = append(names, tl.Name)
	}
	if !slices.Equal(names, []string{"clean"}) {
		t.Errorf("tools served: %v, want only clean", names)
	}
	if n := len(g.Manifest().Tools) - 1; strings.Count(logs.String(), "tool withheld") != n {
		t.Errorf("want %d tool withheld lines:\n%s", n, logs.String())
	}
	prompts, err := cs.ListPrompts(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(prompts.Prompts) != 1 || prompts.Prompts[0].Name != "p_clean" {
		t.Errorf("prompts served: %d, want only p_clean", len(prompts.Prompts))
	}
	res, err := cs.ListResources(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Resources) != 1 || res.Resources[0].URI != "mem://clean" {
		t.Errorf("resources served: %d, want only mem://clean", len(res.Resources))
	}
	tmpl, err := cs.ListResourceTemplates(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(tmpl.ResourceTemplates) != 1 || tmpl.ResourceTemplates[0].Name != "tclean" {
		t.Errorf("resource templates served: %d, want only tclean", len(tmpl.ResourceTemplates))
	}
	for _, w := range []string{`prompt \"p_desc\": description`, `prompt \"p_arg\": arguments[0].description`,
		`resource \"mem://hidden\": description`, `resource template \"mem://h/{x}\": description`, "U+001B", "U+E0100"} {
		if !strings.Contains(logs.String(), w) {
			t.Errorf("log lacks %s", w)
		}
	}
	// The clean features still answer.
	if r, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "clean"}); err != nil || r.IsError {
		t.Fatalf("call clean: %v %v", r, err)
	}
	if _, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "p_clean", Arguments: map[string]string{"x": "1"}}); err != nil {
		t.Fatalf("get p_clean: %v", err)
	}
	if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "mem://clean"}); err != nil {
		t.Fatalf("read mem://clean: %v", err)
	}
}

package mcpserver_test

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mcpwasm/mcpwasm/mcpserver"
	"github.com/mcpwasm/mcpwasm/runtime"
	"github.com/mcpwasm/mcpwasm/testdata/wat"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func newHost(t *testing.T) *runtime.Host {
	t.Helper()
	h, err := runtime.NewHost(context.Background(), &runtime.Options{NoDiskCache: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close(context.Background()) })
	return h
}

func loadGuest(t *testing.T, h *runtime.Host, wasm []byte, name string) *runtime.Guest {
	t.Helper()
	g, err := h.Load(context.Background(), wasm, &runtime.GuestConfig{Name: name})
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// Two guests on one server cannot both serve a tool name: the second is refused and nothing
// of it is registered.
func TestDuplicateToolAcrossGuests(t *testing.T) {
	h := newHost(t)
	first, second := loadGuest(t, h, wat.Echo, "first"), loadGuest(t, h, wat.Fixture, "second")
	_, err := mcpserver.NewServer([]*runtime.Guest{first, second}, nil)
	want := `tool "echo" of guest "second" is already provided by guest "first"` + prefixHint
	if err == nil || err.Error() != want {
		t.Fatalf("NewServer error = %v; want %q", err, want)
	}
}

// A reload replaces a guest's tools under the same names, removes and releases the names
// the new version dropped, and still refuses another guest's claim on the names it keeps.
func TestReplaceGuest(t *testing.T) {
	h := newHost(t)
	names := &mcpserver.NameSet{}
	old := loadGuest(t, h, wat.Fixture, "fixture")
	s, err := mcpserver.NewServer([]*runtime.Guest{old}, &mcpserver.Options{Names: names})
	if err != nil {
		t.Fatal(err)
	}
	next := loadGuest(t, h, wat.Echo, "fixture") // a new version that serves only echo
	removed, err := mcpserver.ReplaceGuest(s, old, next, &mcpserver.GuestOptions{Names: names})
	if err != nil {
		t.Fatal(err)
	}
	var wantRemoved []string
	for _, tool := range old.Manifest().Tools {
		if tool.Name != "echo" {
			wantRemoved = append(wantRemoved, tool.Name)
		}
	}
	if diff := cmp.Diff(wantRemoved, removed); diff != "" || len(removed) == 0 {
		t.Errorf("removed (-want +got):\n%s", diff)
	}
	for _, name := range removed {
		if _, ok := names.Claim(name, `upstream "x"`); !ok {
			t.Errorf("name %q was not released", name)
		}
	}
	other := loadGuest(t, h, wat.Echo, "other")
	err = mcpserver.AddGuest(s, other, &mcpserver.GuestOptions{Names: names})
	if want := `tool "echo" of guest "other" is already provided by guest "fixture"` + prefixHint; err == nil || err.Error() != want {
		t.Errorf("names after reload: %v; want %s", err, want)
	}

	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, tool := range res.Tools {
		got = append(got, tool.Name)
	}
	if diff := cmp.Diff([]string{"echo"}, got); diff != "" {
		t.Errorf("tools after reload (-want +got):\n%s", diff)
	}
}

// Two modules whose manifests carry the same guest name are still two owners: the second
// cannot take over the first's tools (a swapped module must never shadow a tool silently).
func TestSameNamedGuestsConflict(t *testing.T) {
	h := newHost(t)
	load := func(src string) *runtime.Guest {
		g, err := h.Load(context.Background(), wat.Echo, &runtime.GuestConfig{Source: src})
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	a, b := load("a.wasm"), load("b.wasm")
	_, err := mcpserver.NewServer([]*runtime.Guest{a, b}, nil)
	want := `tool "echo" of guest "echo" (b.wasm) is already provided by guest "echo" (a.wasm)` + prefixHint
	if err == nil || err.Error() != want {
		t.Fatalf("NewServer error = %v; want %q", err, want)
	}
}

// prefixHint ends the error of two guests claiming one tool name: the config key that fixes it.
const prefixHint = `; to serve both, give one a tool prefix (config: "tool_prefix" of the guest; runtime.GuestConfig.ToolPrefix)`

// ClaimGuest and ClaimStatus are the rule AddGuest, NewServer and AddStatus follow, for a
// command that only checks (mcpwasm inspect): the same clashes in the same words, a guest's
// names all or none.
func TestClaimGuestAndStatus(t *testing.T) {
	h := newHost(t)
	first, second := loadGuest(t, h, wat.Echo, "first"), loadGuest(t, h, wat.Fixture, "second")
	holder := loadGuest(t, h, manifestGuest(`{"name":"holder","version":"1.0.0","tools":[{"name":"mcpwasm_status","inputSchema":{"type":"object"}}]}`), "")
	var names mcpserver.NameSet
	if err := names.ClaimGuest(first); err != nil {
		t.Fatal(err)
	}
	want := `tool "echo" of guest "second" is already provided by guest "first"` + prefixHint
	if err := names.ClaimGuest(second); err == nil || err.Error() != want {
		t.Errorf("ClaimGuest(second) = %v; want %s", err, want)
	}
	if h, ok := names.Claim("add", `upstream "x"`); !ok { // second's other tools were not claimed
		t.Errorf("add is held by %s after second's claim was refused", h)
	}
	if err := names.ClaimGuest(holder); err != nil {
		t.Fatal(err)
	}
	want = `tool "mcpwasm_status" of the status tools is already provided by guest "holder"`
	if err := names.ClaimStatus(); err == nil || err.Error() != want {
		t.Errorf("ClaimStatus = %v; want %s", err, want)
	}
}

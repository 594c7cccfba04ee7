package runtime_test

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	"github.com/mcpwasm/mcpwasm/runtime"
	"github.com/mcpwasm/mcpwasm/runtime/policy"
)

// toolTexts calls tool and returns the texts of its result's content and isError.
func toolTexts(t *testing.T, g *runtime.Guest, tool, args string) ([]string, bool) {
	t.Helper()
	out, err := g.Call(context.Background(), tool, []byte(args))
	if err != nil {
		t.Fatalf("Call(%s, %s): %v", tool, args, err)
	}
	var res struct {
		Content []struct{ Text string } `json:"content"`
		IsError bool                    `json:"isError"`
	}
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("result %s: %v", out, err)
	}
	var texts []string
	for _, c := range res.Content {
		texts = append(texts, c.Text)
	}
	return texts, res.IsError
}

// A guest that requested an fs directory it was not granted gets "Permission denied" there
// (it got WASI's "Bad file number": no mount matched), and its tool error says which grant is
// missing, as a missing net grant's does. A path outside every requested directory is left
// as it was; the message names the tool when grants are narrowed per tool.
func TestFSUngrantedSaysSo(t *testing.T) {
	h, _ := newHost(t)
	none := loadProbe(t, h, runtime.GuestConfig{Name: "notes"})
	const note = `fs: /data is not granted to guest "notes"`
	for _, tt := range []struct {
		tool, args string
		want       []string
	}{
		{"read", `{"path":"/data/a.txt"}`, []string{"open /data/a.txt: Permission denied", note}},
		{"write", `{"path":"/data/sub/b.txt","text":"x"}`, []string{"open /data/sub/b.txt: Permission denied", note}},
		// Go's wasip1 matches the mount /data to /database too; the path is not under /data, so
		// no note.
		{"read", `{"path":"/database/a.txt"}`, []string{"open /database/a.txt: Permission denied"}},
		{"read", `{"path":"/etc/passwd"}`, []string{"open /etc/passwd: Bad file number"}},
	} {
		texts, isErr := toolTexts(t, none, tt.tool, tt.args)
		if !isErr || !slices.Equal(texts, tt.want) {
			t.Errorf("%s %s: %q isError=%v; want %q", tt.tool, tt.args, texts, isErr, tt.want)
		}
	}
	// Narrowed per tool: the read tool is granted /data, the write tool nothing.
	box := t.TempDir()
	h2, _ := newHost(t)
	narrowed := loadProbe(t, h2, runtime.GuestConfig{Name: "notes",
		Grants:     runtime.Grants{FS: []policy.FS{{Guest: "/data", Host: box, RW: true}}},
		ToolGrants: map[string]runtime.Grants{"read": {FS: []policy.FS{{Guest: "/data", Host: box, RW: true}}}, "write": {}}})
	texts, isErr := toolTexts(t, narrowed, "write", `{"path":"/data/b.txt","text":"x"}`)
	if want := []string{"open /data/b.txt: Permission denied", `fs: /data is not granted to tool "write" of guest "notes"`}; !isErr || !slices.Equal(texts, want) {
		t.Errorf("narrowed write: %q isError=%v; want %q", texts, isErr, want)
	}
	texts, isErr = toolTexts(t, narrowed, "read", `{"path":"/data/missing.txt"}`)
	if want := []string{"open /data/missing.txt: No such file or directory"}; !isErr || !slices.Equal(texts, want) {
		t.Errorf("granted read: %q isError=%v; want %q", texts, isErr, want)
	}
}

package guests_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	goruntime "runtime"
	"testing"

	"github.com/mcpwasm/mcpwasm/runtime"
)

// TestNojsonBuild builds testdata/guests/nojson with -tags mcpwasm_nojson and checks what
// that build does without fmt and encoding/json: a handler's panic value formatted as %v
// formats it (strings, errors, Stringers, booleans, numbers; other values by their type), and
// a result type's MarshalJSON output compacted — or its failure reported — in encoding/json's
// words.
func TestNojsonBuild(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a Go guest; skipped with -short")
	}
	out := filepath.Join(t.TempDir(), "nojson.wasm")
	// The go command of the toolchain running this test.
	goCmd := filepath.Join(goruntime.GOROOT(), "bin", "go")
	cmd := exec.Command(goCmd, "build", "-buildmode=c-shared", "-tags=mcpwasm_nojson", "-o", out, "./testdata/guests/nojson")
	cmd.Dir = ".."
	cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building: %v\n%s", err, b)
	}
	wasm, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	h, err := runtime.NewHost(ctx, &runtime.Options{CacheDir: cacheDir})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close(ctx)
	g, err := h.Load(ctx, wasm, nil)
	if err != nil {
		t.Fatal(err)
	}
	const panicked = `{"content":[{"type":"text","text":"tool \"panic\" panicked: `
	for _, c := range []struct{ tool, kind, want string }{
		{"panic", "string", panicked + `boom"}],"isError":true}`},
		{"panic", "error", panicked + `an error"}],"isError":true}`},
		{"panic", "stringer", panicked + `label x"}],"isError":true}`},
		{"panic", "int", panicked + `-42"}],"isError":true}`},
		{"panic", "uint8", panicked + `200"}],"isError":true}`},
		{"panic", "float", panicked + `1e+21"}],"isError":true}`},
		{"panic", "float32", panicked + `0.1"}],"isError":true}`},
		{"panic", "bool", panicked + `true"}],"isError":true}`},
		{"panic", "index", panicked + `runtime error: index out of range [105] with length 0"}],"isError":true}`},
		{"panic", "struct", panicked + `(main.point value)"}],"isError":true}`}, // fmt would say {1 2}
		{"marshal", "ok", `{"content":[{"type":"text","text":"{\"kind\":\"ok\",\"html\":\"<&>\"}"}],"structuredContent":{"kind":"ok","html":"<&>"}}`},
		{"marshal", "bad", `{"content":[{"type":"text","text":"encoding result: json: error calling MarshalJSON for type main.out: invalid character '}' looking for beginning of value"}],"isError":true}`},
		{"marshal", "fail", `{"content":[{"type":"text","text":"encoding result: json: error calling MarshalJSON for type main.out: no"}],"isError":true}`},
	} {
		got, err := g.Call(ctx, c.tool, []byte(`{"kind":"`+c.kind+`"}`))
		if err != nil || string(got) != c.want {
			t.Errorf("%s %s =\n%s, %v\nwant\n%s", c.tool, c.kind, got, err, c.want)
		}
	}
}

package ship_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpwasm/mcpwasm/internal/ship"
)

// FuzzParseSource: any string parses or errors, never panics; an OCI source keeps a
// registry, a repository and a reference.
func FuzzParseSource(f *testing.F) {
	for _, s := range []string{"a.wasm", "https://h/x.wasm", "http://h:1/x", "oci://r/a:b", "oci://r/a@sha256:" + strings.Repeat("a", 64), "oci://", "x://y", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		src, err := ship.ParseSource(s)
		if err != nil {
			return
		}
		if src.Raw != s {
			t.Fatalf("Raw = %q, want %q", src.Raw, s)
		}
		if src.Kind == ship.KindOCI && (src.Ref.Registry == "" || src.Ref.Repository == "" || src.Ref.Reference == "") {
			t.Fatalf("OCI source %q with an empty part: %+v", s, src.Ref)
		}
	})
}

// FuzzReadLock: a lock file (committed, so reviewable input from anyone) decodes or errors;
// one that decodes writes back and reads again to the same entries.
func FuzzReadLock(f *testing.F) {
	f.Add([]byte(`{"version":1,"guests":[{"name":"e","source":"oci://r/e:v1","resolved":"sha256:00","sha256":"00","manifest":"sha256:11","tools":{"e":{"description":"sha256:22"}}}]}`))
	f.Add([]byte(`{"version":1,"guests":[],"upstreams":{"u":{"t":{"title":"sha256:33"}}}}`))
	f.Add([]byte(`{"version":2}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(t.TempDir(), ship.LockName)
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		l, err := ship.ReadLock(p)
		if err != nil || l == nil {
			return
		}
		if err := l.Write(p); err != nil {
			t.Fatal(err)
		}
		again, err := ship.ReadLock(p)
		if err != nil || len(again.Guests) != len(l.Guests) || len(again.Upstreams) != len(l.Upstreams) {
			t.Fatalf("rewritten lock reads back as %+v, %v", again, err)
		}
	})
}

package ship_test

import (
	"context"
	"crypto/sha256"
	"crypto/tls"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/mcpwasm/mcpwasm/internal/ship"
	"github.com/mcpwasm/mcpwasm/internal/ship/shiptest"
	"github.com/mcpwasm/mcpwasm/testdata/wat"
)

// paddingRegistry is a test registry that, for the paths in pad, sends the real content
// followed by 8 MiB more, chunked (no Content-Length): a server sending more than the
// descriptor it is fetched by says.
type paddingRegistry struct {
	*testRegistry
	mu  sync.Mutex
	pad map[string]bool
}

func newPaddingRegistry(t *testing.T) *paddingRegistry {
	p := &paddingRegistry{pad: map[string]bool{}}
	pad := func(inner http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			p.mu.Lock()
			padded := r.Method == http.MethodGet && p.pad[r.URL.Path]
			p.mu.Unlock()
			if !padded {
				inner.ServeHTTP(w, r)
				return
			}
			rec := httptest.NewRecorder()
			inner.ServeHTTP(rec, r)
			for k, v := range rec.Header() {
				if k != "Content-Length" {
					w.Header()[k] = v
				}
			}
			w.WriteHeader(rec.Code)
			w.Write(rec.Body.Bytes())
			junk := []byte(strings.Repeat(" ", 64<<10))
			for range 128 {
				if _, err := w.Write(junk); err != nil {
					return
				}
			}
		})
	}
	r := shiptest.NewRegistry(t, shiptest.RegistryOptions{Wrap: pad})
	p.testRegistry = &testRegistry{host: r.Host, tls: r.TLS, cert: r.Cert}
	return p
}

func (p *paddingRegistry) padPath(path string) {
	p.mu.Lock()
	p.pad[path] = true
	p.mu.Unlock()
}

func sha256Of(b []byte) string {
	s := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(s[:])
}

// TestFetchRefusesMoreThanDescribed: a module layer, a signature referrer's manifest and a
// signature bundle each sent with more bytes than their descriptor says are refused while
// reading (the limit is the descriptor's size), and nothing is stored.
func TestFetchRefusesMoreThanDescribed(t *testing.T) {
	ctx := context.Background()
	key, kp := keyPolicy(t)
	bundle := signBundle(t, key, nil, wat.Echo)
	verify := func(s ship.Signed) error { return ship.Verify(kp, s) }
	for _, tt := range []struct {
		name string
		pad  func(reg *paddingRegistry, referrer string) string
	}{
		{"module layer", func(*paddingRegistry, string) string { return "/v2/tools/echo/blobs/" + sha256Of(wat.Echo) }},
		{"signature manifest", func(_ *paddingRegistry, referrer string) string { return "/v2/tools/echo/manifests/" + referrer }},
		{"signature bundle", func(*paddingRegistry, string) string { return "/v2/tools/echo/blobs/" + sha256Of(bundle) }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			reg := newPaddingRegistry(t)
			pusher := ship.NewClient(nil, &ship.Options{TLS: reg.tls, DockerConfig: emptyDockerConfig(t)})
			src := mustSource(t, "oci://"+reg.host+"/tools/echo:v1")
			if _, err := pusher.Push(ctx, src, wat.Echo, nil); err != nil {
				t.Fatal(err)
			}
			referrer, err := pusher.PushBundle(ctx, src, bundle)
			if err != nil {
				t.Fatal(err)
			}
			reg.padPath(tt.pad(reg, referrer))
			store, dir := newStore(t)
			c := ship.NewClient(store, &ship.Options{TLS: &tls.Config{RootCAs: reg.tls.RootCAs}, DockerConfig: emptyDockerConfig(t)})
			_, err = c.Fetch(ctx, src, "", verify)
			if err == nil || !strings.Contains(err.Error(), "the server sent more bytes than the descriptor's size") || !strings.HasPrefix(err.Error(), src.Raw+": ") {
				t.Fatalf("Fetch = %v, want a refusal of the extra bytes naming the source", err)
			}
			if got := storeFiles(t, dir); len(got) != 0 {
				t.Errorf("store = %v", got)
			}
		})
	}
}

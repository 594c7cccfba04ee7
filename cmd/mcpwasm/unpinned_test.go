package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/mcpwasm/mcpwasm/internal/digest"
	"github.com/mcpwasm/mcpwasm/testdata/wat"
)

// A remote guest that nothing pins (no lock, no "sha256", a tag or a URL) loads with a
// warning naming it and how to lock it; a digest reference, a "sha256" pin or a lock silences
// it (a newcomer's OCI guest was fetched silently).
func TestUnpinnedRemoteGuestWarns(t *testing.T) {
	e := newShipEnv(t)
	pushed := e.push(wat.Echo)
	web := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write(wat.Echo) }))
	t.Cleanup(web.Close)
	const warning = `level=WARN msg="guest is not pinned: every start fetches what its source names now, which can change; run mcpwasm pull --config `
	for _, tt := range []struct {
		what, guest string
		warn        bool
	}{
		{"a tag", `{"name": "echo", "path": "oci://` + e.host + `/tools/echo:v1"}`, true},
		{"a URL", `{"name": "echo", "path": "` + web.URL + `/echo.wasm"}`, true},
		{"a digest", `{"name": "echo", "path": "oci://` + e.host + `/tools/echo@` + pushed + `"}`, false},
		{"a sha256 pin", `{"name": "echo", "path": "oci://` + e.host + `/tools/echo:v1", "sha256": "` + digest.Hex(wat.Echo) + `"}`, false},
	} {
		cfg := `{"plain_http": ["` + strings.TrimPrefix(web.URL, "http://") + `"], "guests": [` + tt.guest + `]}`
		if err := os.WriteFile(e.config, []byte(cfg), 0o644); err != nil {
			t.Fatal(err)
		}
		code, _, errOut := e.run("inspect", "--cache-dir", cacheDir, "--config", e.config)
		if code != ExitOK || strings.Contains(errOut, warning+e.config+` to fetch and lock it in mcpwasm.lock, or pin it with \"sha256\"" guest=echo source=`) != tt.warn {
			t.Errorf("%s: exit %d, stderr %q; want the warning %v", tt.what, code, errOut, tt.warn)
		}
	}
	// Locked: no warning.
	cfg := `{"guests": [{"name": "echo", "path": "oci://` + e.host + `/tools/echo:v1"}]}`
	if err := os.WriteFile(e.config, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := e.run("pull", "--config", e.config); code != ExitOK {
		t.Fatalf("pull: exit %d: %s", code, errOut)
	}
	if code, _, errOut := e.run("inspect", "--cache-dir", cacheDir, "--config", e.config); code != ExitOK || strings.Contains(errOut, "not pinned") {
		t.Errorf("locked: exit %d, stderr %q", code, errOut)
	}
}

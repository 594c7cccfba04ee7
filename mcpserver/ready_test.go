package mcpserver_test

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/mcpwasm/mcpwasm/mcpserver"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestReadyzFollowsReady: GET /readyz is 503 with the reason while HTTPOptions.Ready returns
// an error and 200 once it returns nil; GET /healthz (liveness) is 200 throughout.
func TestReadyzFollowsReady(t *testing.T) {
	var reason atomic.Pointer[error]
	notYet := errors.New("guest calc: compiling")
	reason.Store(&notYet)
	h := mcpserver.NewHTTPHandler(mcp.NewServer(&mcp.Implementation{Name: "t", Version: "0"}, nil), &mcpserver.HTTPOptions{
		Stateless: true,
		Ready:     func() error { return *reason.Load() },
	})
	srv := httptest.NewServer(h)
	defer srv.Close()

	get := func(path string) (int, string) {
		t.Helper()
		resp, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return resp.StatusCode, string(b)
	}
	check := func(path string, wantCode int, wantBody string) {
		t.Helper()
		if code, body := get(path); code != wantCode || body != wantBody {
			t.Errorf("GET %s = %d %q, want %d %q", path, code, body, wantCode, wantBody)
		}
	}
	check("/readyz", http.StatusServiceUnavailable, "not ready: guest calc: compiling\n")
	check("/healthz", http.StatusOK, "ok\n")
	var ok error
	reason.Store(&ok)
	check("/readyz", http.StatusOK, "ready\n")
	draining := errors.New("draining")
	reason.Store(&draining)
	check("/readyz", http.StatusServiceUnavailable, "not ready: draining\n")
	check("/healthz", http.StatusOK, "ok\n")
}

// TestReadyzWithoutReady: no Ready function means always ready.
func TestReadyzWithoutReady(t *testing.T) {
	srv := httptest.NewServer(mcpserver.NewHTTPHandler(mcp.NewServer(&mcp.Implementation{Name: "t", Version: "0"}, nil), nil))
	defer srv.Close()
	resp, err := http.Get(srv.URL + "/readyz")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK || string(b) != "ready\n" {
		t.Errorf("GET /readyz = %d %q, want 200 \"ready\\n\"", resp.StatusCode, b)
	}
}

package extism

import (
	"slices"
	"testing"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/runtime/policy"
)

// A plugin importing path_open and environ_get requests fs "*" and env "*", which become
// what the operator grants: it cannot name them itself.
func TestRequested(t *testing.T) {
	info := Info{Uses: []string{"net"}}
	r := requestsOf(info, []string{"path_open", "environ_get", "clock_time_get", "fd_write"})
	if r.Net[0] != "*:*" || r.FS[0].Path != AnyPath || r.Env[0] != AnyVar || !r.Clock || r.Random {
		t.Fatalf("requests %+v", r)
	}
	g := policy.Grants{FS: []policy.FS{{Guest: "/data", Host: "/srv", RW: true}, {Guest: "/ro", Host: "/x"}}, Env: []string{"TOKEN", "MODE=fast"}}
	got := Kind{}.Requested(r, g)
	if want := []abi.FSRequest{{Path: "/data", RW: true}, {Path: "/ro"}}; !slices.Equal(got.FS, want) || !slices.Equal(got.Env, []string{"TOKEN", "MODE"}) || got.Net[0] != "*:*" {
		t.Errorf("Requested = %+v", got)
	}
	// Without those imports nothing is widened.
	if got := (Kind{}).Requested(requestsOf(info, nil), g); got.FS != nil || got.Env != nil {
		t.Errorf("no WASI fs/env imports: %+v", got)
	}
}

func TestGuestName(t *testing.T) {
	for src, want := range map[string]string{
		"oci://ghcr.io/hyper-mcp-rs/time-plugin:latest":  "time-plugin",
		"oci://ghcr.io/hyper-mcp-rs/qr-code@sha256:abcd": "qr-code",
		"oci://localhost:5000/plugins/fetch":             "fetch",
		"/opt/plugins/my plugin.wasm":                    "my-plugin",
		"https://example.com/p/hash.wasm":                "hash",
		"":                                               "plugin",
	} {
		if got := (Kind{}).GuestName(src); got != want {
			t.Errorf("guestName(%q) = %q, want %q", src, got, want)
		}
	}
}

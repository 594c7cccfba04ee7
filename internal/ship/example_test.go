package ship_test

import (
	"fmt"

	"github.com/mcpwasm/mcpwasm/internal/ship"
)

func ExampleParseSource() {
	for _, s := range []string{"guests/echo.wasm", "https://example.com/echo.wasm", "oci://ghcr.io/acme/echo:1.0.0", "oci://ghcr.io/acme/echo"} {
		src, err := ship.ParseSource(s)
		if err != nil {
			fmt.Println(err)
			continue
		}
		switch src.Kind {
		case ship.KindOCI:
			fmt.Println("oci", src.Ref.Registry, src.Ref.Repository, src.Ref.Reference)
		case ship.KindURL:
			fmt.Println("url", src.URL.Host, src.URL.Path)
		default:
			fmt.Println("path", src.Raw)
		}
	}
	// Output:
	// path guests/echo.wasm
	// url example.com /echo.wasm
	// oci ghcr.io acme/echo 1.0.0
	// oci ghcr.io acme/echo latest
}

func ExampleDiff() {
	locked := map[string]ship.ToolDigests{"search": {"description": "sha256:aa", "inputSchema": "sha256:bb"}, "old": {}}
	now := map[string]ship.ToolDigests{"search": {"description": "sha256:cc", "inputSchema": "sha256:bb"}, "new": {}}
	for _, c := range ship.Diff(locked, now) {
		fmt.Println(c)
	}
	// Output:
	// tool "new": added
	// tool "old": removed
	// tool "search": description changed
}

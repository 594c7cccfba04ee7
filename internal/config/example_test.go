package config_test

import (
	"fmt"
	"log"

	"github.com/mcpwasm/mcpwasm/internal/config"
)

// Parse a configuration and turn a guest entry into what runtime.Host.Load takes.
func ExampleParse() {
	c, err := config.Parse([]byte(`{
  "guests": [
    { "name": "web", "path": "fetch.wasm",
      "grants": { "net": ["*.example.org:443"], "clock": true },
      "limits": { "memory_mb": 64, "timeout_ms": 10000 },
      "tools": { "fetch": { "grants": { "net": ["api.example.org:443"] } } } }
  ]
}`))
	if err != nil {
		log.Fatal(err)
	}
	g := c.GuestConfig(c.Guests[0], "fetch.wasm")
	fmt.Println(g.Name, g.Grants.Net, g.Grants.Clock, g.Limits.MemoryBytes>>20, g.Limits.Timeout)
	fmt.Println(g.ToolGrants["fetch"].Net)
	// Output:
	// web [*.example.org:443] true 64 10s
	// [api.example.org:443]
}

// Mistakes are load errors that name the line or the field.
func ExampleParse_errors() {
	for _, in := range []string{
		"{\n  \"guests\": [],\n  \"guestz\": []\n}",
		`{"guests": [{"path": "a.wasm", "grants": {"net": ["*.example.org"]}, "tools": {"t": {"grants": {"net": ["evil.org"]}}}}]}`,
	} {
		_, err := config.Parse([]byte(in))
		fmt.Println(err)
	}
	// Output:
	// line 3 column 3: unknown key "guestz" at the top level (did you mean "guests"?)
	// line 1 column 96: guests[0].tools.t.grants: net "evil.org" is not granted to the guest
}

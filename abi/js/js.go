// Package js holds mcpwasm's JavaScript guest SDK, the files `mcpwasm new ts|js` writes into
// a project's mcpwasm/ directory: shim.js (the web-platform basics and the TypeScript SDK's
// McpServer API over one host function), sdk.js (what the SDK's server imports resolve to)
// and build.mjs (bundles a server script with esbuild and appends it to the pinned engine
// as the custom section "mcpwasm.js"). The host side is runtime/internal/kind/quickjs.
package js

import (
	"embed"
	"io/fs"
	"path"
)

// Shim is shim.js: run before the bundled script; defines console, timers, fetch, URL,
// TextEncoder/TextDecoder, crypto, process and globalThis.__mcpwasm (the host's entries).
//
//go:embed shim.js
var Shim string

// SDK is sdk.js: the module the SDK's server imports are pointed at.
//
//go:embed sdk.js
var SDK string

// Build is build.mjs: the project's build step (npm run build).
//
//go:embed build.mjs
var Build string

// Zod3 is zod3.js: sdk.js's adapter for zod 3 shapes (packages built before zod 4).
//
//go:embed zod3.js
var Zod3 string

//go:embed node/*.js
var nodeFS embed.FS

// Files returns the guest SDK's files by path inside a project's mcpwasm/ directory:
// shim.js, sdk.js, zod3.js, build.mjs and node/NAME.js (the Node built-ins with a sandbox
// meaning, mapped by build.mjs).
func Files() map[string][]byte {
	m := map[string][]byte{"shim.js": []byte(Shim), "sdk.js": []byte(SDK), "zod3.js": []byte(Zod3), "build.mjs": []byte(Build)}
	names, _ := fs.Glob(nodeFS, "node/*.js")
	for _, n := range names {
		b, _ := nodeFS.ReadFile(n)
		m[path.Join("node", path.Base(n))] = b
	}
	return m
}

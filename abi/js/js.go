// Package js holds mcpwasm's JavaScript guest SDK, the files `mcpwasm new ts|js` writes into
// a project's mcpwasm/ directory: shim.js (the web-platform basics and the TypeScript SDK's
// McpServer API over one host function), sdk.js (what the SDK's server imports resolve to)
// and build.mjs (bundles a server script with esbuild and appends it to the pinned engine
// as the custom section "mcpwasm.js"). The host side is runtime/internal/kind/quickjs.
package js

import _ "embed"

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

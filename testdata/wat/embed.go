// Package wat holds hand-written WebAssembly guests used as test fixtures and as the ABI's
// reference example. Each .wasm is built from the .wat beside it:
//
//	wat2wasm testdata/wat/echo.wat -o testdata/wat/echo.wasm
//	wat2wasm testdata/wat/fixture.wat -o testdata/wat/fixture.wasm
//	wat2wasm testdata/wat/interrupt.wat -o testdata/wat/interrupt.wasm
//	wat2wasm testdata/wat/hardening.wat -o testdata/wat/hardening.wasm
//	wat2wasm testdata/wat/hygiene.wat -o testdata/wat/hygiene.wasm
//	wat2wasm testdata/wat/state.wat -o testdata/wat/state.wasm
//	wat2wasm testdata/wat/updated.wat -o testdata/wat/updated.wasm
//	wat2wasm testdata/wat/bulk.wat -o testdata/wat/bulk.wasm
//	wat2wasm --no-check testdata/wat/bypass.wat -o testdata/wat/bypass.wasm
//	wat2wasm testdata/wat/probe.wat -o testdata/wat/probe.wasm
//	wat2wasm testdata/wat/snapshot.wat -o testdata/wat/snapshot.wasm
//	wat2wasm testdata/wat/mirror.wat -o testdata/wat/mirror.wasm
//
// (Debian package wabt). runtime's TestWATFixturesCurrent checks the committed .wasm files
// match their sources.
package wat

import _ "embed"

// Echo is echo.wasm, the smallest complete guest (abi/ABI.md §10).
//
// Rebuild: wat2wasm testdata/wat/echo.wat -o testdata/wat/echo.wasm
//
//go:embed echo.wasm
var Echo []byte

// Fixture is fixture.wasm: tools echo, add, spin, tree, trap, grow, oom, print, read, fail, steps, logs, shape_ok,
// shape_bad.
//
// Rebuild: wat2wasm testdata/wat/fixture.wat -o testdata/wat/fixture.wasm
//
//go:embed fixture.wasm
var Fixture []byte

// Interrupt is interrupt.wasm: tools spin, tree, block (an mcp.call to upstream "slow") and
// ok; patching "mode:-" to "mode:i" or "mode:s" makes _initialize or the start function loop
// forever.
//
// Rebuild: wat2wasm testdata/wat/interrupt.wat -o testdata/wat/interrupt.wasm
//
//go:embed interrupt.wasm
var Interrupt []byte

// Hardening is hardening.wasm: tools kind, body, flood, progress, deep, ok — guests that try
// to make host calls cost the host more than they cost the guest.
//
// Rebuild: wat2wasm testdata/wat/hardening.wat -o testdata/wat/hardening.wasm
//
//go:embed hardening.wasm
var Hardening []byte

// Hygiene is hygiene.wasm: tools, prompts, resources and resource templates whose text hides
// invisible characters of every kind, beside clean ones (tool "clean", prompt "p_clean",
// resource "mem://clean", template "tclean").
//
// Rebuild: wat2wasm testdata/wat/hygiene.wat -o testdata/wat/hygiene.wasm
//
//go:embed hygiene.wasm
var Hygiene []byte

// State is state.wasm: tool remember returns the arguments of the previous call the same
// instance served (initially {}), then keeps the new ones — state left in linear memory, for
// the isolation tests.
//
// Rebuild: wat2wasm testdata/wat/state.wat -o testdata/wat/state.wasm
//
//go:embed state.wasm
var State []byte

// Updated is updated.wasm: tool flood makes 20,000 resource.updated requests for its
// resource test://a (the per-call report budget, ABI.md §6.6).
//
// Rebuild: wat2wasm testdata/wat/updated.wat -o testdata/wat/updated.wasm
//
//go:embed updated.wasm
var Updated []byte

// Bulk is bulk.wasm: tools fill and copy loop forever over one 64 MiB memory.fill or 32 MiB
// memory.copy, ok returns; every call logs "entered" first.
//
// Rebuild: wat2wasm testdata/wat/bulk.wat -o testdata/wat/bulk.wasm
//
//go:embed bulk.wasm
var Bulk []byte

// Bypass is bypass.wasm, an invalid module: its call loops writing global 0, which it does not
// define and which the host's rewrite would make its fuel counter. The host must refuse it.
//
// Rebuild: wat2wasm --no-check testdata/wat/bypass.wat -o testdata/wat/bypass.wasm
//
//go:embed bypass.wasm
var Bypass []byte

// Probe is probe.wasm: a guest of the test-only kind "probe" (it imports probe_v1, not
// mcpwasm_v1), with tools echo, spin, grow, big and hold. runtime's kind-seam tests load it.
//
// Rebuild: wat2wasm testdata/wat/probe.wat -o testdata/wat/probe.wasm
//
//go:embed probe.wasm
var Probe []byte

// Snapshot is snapshot.wasm: an _initialize that changes an unexported global, grows memory
// and writes into a grown page, and tools probe (reports and changes that state), spin and
// grow; for the tests of instances restored from a snapshot. Patching "net:-" to "net:n"
// makes _initialize ask for a capability.
//
// Rebuild: wat2wasm testdata/wat/snapshot.wat -o testdata/wat/snapshot.wasm
//
//go:embed snapshot.wasm
var Snapshot []byte

// Reset is reset.wasm: tools draw (random bytes and the monotonic clock, from the host's
// deterministic sources) and close (closes stdout); for the tests of instances reset in
// place to their snapshot.
//
// Rebuild: wat2wasm testdata/wat/reset.wat -o testdata/wat/reset.wasm
//
//go:embed reset.wasm
var Reset []byte

// Mirror is mirror.wasm: tool mirror returns its arguments, byte for byte, as its result;
// resource mirror://meta and prompt meta answer with a _meta key of MCP's reserved namespace.
//
// Rebuild: wat2wasm testdata/wat/mirror.wat -o testdata/wat/mirror.wasm
//
//go:embed mirror.wasm
var Mirror []byte

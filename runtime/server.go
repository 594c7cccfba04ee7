package runtime

import (
	"context"

	"github.com/mcpwasm/mcpwasm/runtime/internal/engine"
	"github.com/mcpwasm/mcpwasm/runtime/peer"
)

// IsWASIServer reports whether wasm is a whole-server guest, for LoadServer (Load refuses
// it): a WASI command, which exports a function _start and imports functions only from
// wasi_snapshot_preview1 (at least one). It reads the module's import and export sections
// only; a module it cannot parse is not one.
func (h *Host) IsWASIServer(wasm []byte) bool {
	return h.e.IsWASIServer(wasm)
}

// Server is a loaded whole-server guest: compiled once, started once per client session
// (Start). It is safe for concurrent use.
type Server struct {
	s *engine.Server
}

// LoadServer compiles wasm, which must be a WASI command (IsWASIServer), under cfg's load
// caps and limits, and returns a Server that starts an instance per Start. Of cfg it reads
// Name (else derived from Source's file name), Source, Limits, Grants (fs, env, clock,
// random: what the process gets; net and exec mean nothing to WASI preview 1, which has no
// sockets or processes), SHA256, Args and Isolation (which the caller applies: Isolation).
// Errors name the source.
func (h *Host) LoadServer(ctx context.Context, wasm []byte, cfg *GuestConfig) (*Server, error) {
	s, err := h.e.LoadServer(ctx, wasm, (*engine.GuestConfig)(cfg))
	if err != nil {
		return nil, err
	}
	return &Server{s: s}, nil
}

// Name is the guest's name.
func (s *Server) Name() string {
	return s.s.Name()
}

// Kind is the guest's kind for inspect and logs: "wasi-server", or "javascript-server" for a
// JavaScript bundle that carries its own SDK (runtime/internal/engine/jsserver.go).
func (s *Server) Kind() string {
	return s.s.Kind()
}

// Source is where the module came from, as GuestConfig.Source said.
func (s *Server) Source() string {
	return s.s.Source()
}

// Isolation is which calls share an instance: "session" (the default: the calls of one
// client session), "shared" (every call: one instance for all clients) or "call" (none: an
// instance started for each call). The caller (who keeps the sessions) applies it.
func (s *Server) Isolation() string {
	return s.s.Isolation()
}

// Limits are the guest's limits (policy defaults filled in).
func (s *Server) Limits() Limits {
	return s.s.Limits()
}

// Grants are the guest's grants as configured (a copy). Of them the instance itself uses fs,
// env, clock and random; sampling, elicitation and roots are the caller's to apply to the
// server's requests to the client (upstream.Relay).
func (s *Server) Grants() Grants {
	return s.s.Grants()
}

// Start starts an instance: the module's _start runs on its own goroutine with fresh pipes
// as stdin and stdout. When all the guest's instances are running (its instances limit), it
// waits for one to end until ctx ends, then fails with an error naming the limit ("instance
// limit reached: …"). Errors (here and Process.Err) do not name the guest: the caller does.
func (s *Server) Start(ctx context.Context) (peer.Process, error) {
	return s.s.Start(ctx)
}

// Running is the number of instances running now.
func (s *Server) Running() int {
	return s.s.Running()
}

// Close stops every running instance and releases the compiled module. Close is idempotent.
func (s *Server) Close(ctx context.Context) error {
	return s.s.Close(ctx)
}

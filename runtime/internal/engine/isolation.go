package engine

import (
	"context"
	"fmt"

	"github.com/mcpwasm/mcpwasm/runtime/internal/served"
	"github.com/mcpwasm/mcpwasm/runtime/policy"
)

// isolationMode says which calls may share a guest instance — and so see what earlier calls
// left in its linear memory and globals (GuestConfig.Isolation names it). A fresh instance of
// a session or call guest starts from a snapshot of its first instance taken right after its
// start, unless its grants or its start forbid it (snapshot.go), and an instance another
// session or call is done with is reset in place to that snapshot (reset.go).
type isolationMode int

const (
	// isolationSession reuses an instance only for calls of the session it last served
	// (CallHooks.Session): "session", and "", the default.
	isolationSession isolationMode = iota
	// isolationShared lets any call of the guest reuse an instance: "shared".
	isolationShared
	// isolationCall gives every call a fresh instance — the last call's, reset in place to
	// the snapshot (reset.go), or a new one: "call".
	isolationCall
)

var isolationNames = [...]string{"session", "shared", "call"}

// String is the mode's name in GuestConfig.Isolation.
func (m isolationMode) String() string { return isolationNames[m] }

// parseIsolation parses GuestConfig.Isolation: "shared", "session" or "call"; "" is session,
// the default. The error names the value and the three allowed.
func parseIsolation(s string) (isolationMode, error) {
	if s == "" {
		return isolationSession, nil
	}
	for i, n := range isolationNames {
		if s == n {
			return isolationMode(i), nil
		}
	}
	return 0, fmt.Errorf("isolation %q: want shared, session or call", s)
}

// Validate implements runtime.GuestConfig.Validate, whose doc comment says what it does.
func (c *GuestConfig) Validate() error {
	if c == nil {
		return nil
	}
	if err := c.Limits.Merge(policy.DefaultLimits()).Validate(); err != nil {
		return err
	}
	if _, err := parseIsolation(c.Isolation); err != nil {
		return err
	}
	if err := c.Grants.Validate(); err != nil {
		return fmt.Errorf("grants: %w", err)
	}
	for name, tg := range c.ToolGrants {
		if err := tg.Validate(); err != nil {
			return fmt.Errorf("tool %q grants: %w", name, err)
		}
	}
	if _, err := served.HidePatterns(c.HideTools); err != nil { // runtime/internal/served
		return err
	}
	return nil
}

// sessionFrom is the session of the call in ctx (CallHooks.Session), nil without one.
func sessionFrom(ctx context.Context) any {
	if h := hooksFrom(ctx); h != nil {
		return h.Session
	}
	return nil
}

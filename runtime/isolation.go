package runtime

import (
	"context"
	"fmt"
)

// Isolation says which calls may share a guest instance — and so see what earlier calls left
// in its linear memory and globals. A warm instance is what makes calls cheap, and a guest can
// keep anything in it: a cache, a counter, the last arguments. Choose per guest
// (GuestConfig.Isolation; config key "isolation"; serve --isolation). A fresh instance of
// IsolationSession or IsolationCall starts from a snapshot of the guest's first instance taken
// right after its start, unless its grants or its start forbid it (snapshot.go; README
// "Isolation: what a guest may rely on").
type Isolation int

const (
	// IsolationSession reuses an instance only for calls of the session it last served (see
	// WithSession); a call of another session gets a fresh instance. Calls whose context
	// carries no session count as one session. The default: over HTTP no MCP session sees
	// what another's calls left, and a session's calls after its first are warm.
	IsolationSession Isolation = iota
	// IsolationShared lets any call of the guest reuse an instance: the fastest, for guests
	// that cache on purpose. Calls of different sessions (and clients) may see each other's
	// leftovers.
	IsolationShared
	// IsolationCall gives every call a fresh instance and discards it afterwards: nothing
	// survives a call, at the price of an instantiation per call (about a millisecond for a
	// Go guest from a snapshot, tens of microseconds for a small C or WAT one; BENCHMARKS.md).
	IsolationCall
)

var isolationNames = [...]string{"session", "shared", "call"}

// String returns "shared", "session" or "call".
func (i Isolation) String() string {
	if i >= 0 && int(i) < len(isolationNames) {
		return isolationNames[i]
	}
	return fmt.Sprintf("Isolation(%d)", int(i))
}

// ParseIsolation parses "shared", "session" or "call"; "" is IsolationSession, the default.
func ParseIsolation(s string) (Isolation, error) {
	if s == "" {
		return IsolationSession, nil
	}
	for i, n := range isolationNames {
		if s == n {
			return Isolation(i), nil
		}
	}
	return 0, fmt.Errorf("isolation %q: want shared, session or call", s)
}

type sessionKey struct{}

// WithSession returns a context whose calls belong to session, any comparable value that
// identifies the caller's session (mcpserver uses the *mcp.ServerSession). IsolationSession
// never hands an instance one session used to another.
func WithSession(ctx context.Context, session any) context.Context {
	return context.WithValue(ctx, sessionKey{}, session)
}

func sessionFrom(ctx context.Context) any { return ctx.Value(sessionKey{}) }

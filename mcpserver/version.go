package mcpserver

import (
	"slices"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// MCP protocol revisions are dates ("2025-11-25"). They are compared as dates, never as
// strings: as strings "9" or "2026-07-28x" would sort after "2026-07-28".

// roundsVersion is the first revision whose calls cannot carry a server→client request and
// get input-required results instead (MCP SEP-2322; clientreq.go).
const roundsVersion = "2026-07-28"

// ProtocolAtLeast reports whether the protocol revision v is min or later. A v that is not a
// revision date (YYYY-MM-DD, a real day: what time.Parse(time.DateOnly) accepts) is not: it is
// treated as older than every revision (and so is everything, against a min that is no date).
// It runs on every request, so it checks the date by hand rather than through time.Parse
// (which cost 10 µs a call, 5% of a stdio tools/call); FuzzProtocolAtLeast holds the two equal.
func ProtocolAtLeast(v, min string) bool {
	// Two valid dates of this fixed width sort as strings in date order.
	return isRevisionDate(v) && isRevisionDate(min) && v >= min
}

// isRevisionDate reports whether s is YYYY-MM-DD naming a day of the proleptic Gregorian
// calendar (the 29th of February only in a leap year).
func isRevisionDate(s string) bool {
	if len(s) != 10 || s[4] != '-' || s[7] != '-' {
		return false
	}
	num := func(i, j int) (int, bool) {
		n := 0
		for ; i < j; i++ {
			if s[i] < '0' || s[i] > '9' {
				return 0, false
			}
			n = n*10 + int(s[i]-'0')
		}
		return n, true
	}
	y, ok1 := num(0, 4)
	m, ok2 := num(5, 7)
	d, ok3 := num(8, 10)
	if !ok1 || !ok2 || !ok3 || m < 1 || m > 12 || d < 1 {
		return false
	}
	days := [13]int{0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31}[m]
	if m == 2 && y%4 == 0 && (y%100 != 0 || y%400 == 0) {
		days = 29
	}
	return d <= days
}

// handshakeFallbackVersion is what initialize answers when the server lists no revision the
// handshake can negotiate (only 2026-07-28 and later): the newest handshake-era revision,
// as go-sdk does (ServerOptions.SupportedProtocolVersions).
const handshakeFallbackVersion = "2025-11-25"

// handshakeVersion is the revision initialize negotiates for a client that asks for
// requested, from supported (newest first): requested if the server supports it and it is
// a revision of the handshake (before 2026-07-28, which has no initialize), else the newest
// supported revision before 2026-07-28 (MCP 2025-11-25 "Lifecycle › Version Negotiation":
// "the server MUST respond with another protocol version it supports … the latest").
func handshakeVersion(requested string, supported []string) string {
	if slices.Contains(supported, requested) && isRevisionDate(requested) && !ProtocolAtLeast(requested, sessionlessVersion) {
		return requested
	}
	for _, v := range supported {
		if isRevisionDate(v) && !ProtocolAtLeast(v, sessionlessVersion) {
			return v
		}
	}
	return handshakeFallbackVersion
}

// serverVersions is the revisions a server built with opts negotiates, newest first: go-sdk's
// list narrowed by opts.SupportedProtocolVersions, as mcp.NewServer narrows it.
func serverVersions(opts *mcp.ServerOptions) []string {
	all := mcp.SupportedProtocolVersions()
	if opts == nil || len(opts.SupportedProtocolVersions) == 0 {
		return all
	}
	return slices.DeleteFunc(all, func(v string) bool { return !slices.Contains(opts.SupportedProtocolVersions, v) })
}

// revisionOf is the protocol revision req is answered under; every rule of mcpserver that
// depends on the revision asks it here, never go-sdk's ServerRequest.ProtocolVersion alone.
//
//   - A request of a session that began with initialize: the revision that initialize
//     negotiated (sessionMiddleware records it as the session's, so InitializeParams holds
//     it rather than the revision the client asked for). A 2026-07-28 _meta protocolVersion
//     cannot change it: sessionMiddleware refuses such a request.
//   - A request of the sessionless generation (2026-07-28, SEP-2575; stateless HTTP, or a
//     stdio connection that never sent initialize): the protocolVersion of its own _meta,
//     else that of the connection's first request (what go-sdk recorded).
//
// "" means unknown (a request before initialize).
func revisionOf(req mcp.Request) string {
	if v := handshakeRevision(req); v != "" {
		return v
	}
	if r, ok := req.(interface{ ProtocolVersion() string }); ok {
		return r.ProtocolVersion() // its _meta, else the session's record
	}
	return ""
}

// handshakeRevision is the revision req's session negotiated with initialize, or "" if it
// has none (no session yet, or a session of the sessionless generation).
func handshakeRevision(req mcp.Request) string {
	ss, ok := req.GetSession().(*mcp.ServerSession)
	if !ok || ss == nil {
		return ""
	}
	if ip := ss.InitializeParams(); ip != nil && ip.ProtocolVersion != "" && !ProtocolAtLeast(ip.ProtocolVersion, sessionlessVersion) {
		return ip.ProtocolVersion
	}
	return ""
}

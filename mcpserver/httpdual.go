package mcpserver

import "net/http"

// sessionlessVersion is the first protocol revision without sessions: MCP 2026-07-28
// "Transports › Streamable HTTP" (SEP-2575) makes every request stand alone, carrying its
// revision in the MCP-Protocol-Version header.
const sessionlessVersion = "2026-07-28"

// byGeneration serves both protocol generations on one endpoint, choosing per request: a
// request without Mcp-Session-Id whose MCP-Protocol-Version header names 2026-07-28 or later
// goes to stateless (a fresh session for that request only, as the revision prescribes);
// everything else — initialize, requests of a session, GET streams, DELETE, and requests
// with no version header, which before 2026-07-28 is how a session starts — goes to
// stateful. A session's requests carry its id, so they never change generation.
func byGeneration(stateless, stateful http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Mcp-Session-Id") == "" && ProtocolAtLeast(r.Header.Get("MCP-Protocol-Version"), sessionlessVersion) {
			stateless.ServeHTTP(w, r)
			return
		}
		stateful.ServeHTTP(w, r)
	})
}

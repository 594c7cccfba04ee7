package mcpserver

import "time"

// MCP protocol revisions are dates ("2025-11-25"). They are compared as dates, never as
// strings: as strings "9" or "2026-07-28x" would sort after "2026-07-28".

// roundsVersion is the first revision whose calls cannot carry a server→client request and
// get input-required results instead (MCP SEP-2322; clientreq.go).
const roundsVersion = "2026-07-28"

// ProtocolAtLeast reports whether the protocol revision v is min or later. A v that is not a
// revision date (YYYY-MM-DD) is not: it is treated as older than every revision (and so is
// everything, against a min that is no date).
func ProtocolAtLeast(v, min string) bool {
	d, err1 := time.Parse(time.DateOnly, v)
	m, err2 := time.Parse(time.DateOnly, min)
	return err1 == nil && err2 == nil && !d.Before(m)
}

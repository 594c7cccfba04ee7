package mcpserver

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

package sandbox

import "unicode/utf8"

// maxQuoted caps how much of a guest-supplied string an error message quotes, in bytes.
const maxQuoted = 128

// clip shortens a guest-supplied string for a %q in a message: at most maxQuoted bytes (cut
// at a rune boundary) and "…" when cut, so an error never grows with the guest's input.
func clip(s string) string {
	if len(s) <= maxQuoted {
		return s
	}
	n := maxQuoted
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

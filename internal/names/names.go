// Package names holds the rules that turn names from other ecosystems into mcpwasm names
// (abi.NamePattern): a tool or prompt name of an upstream MCP server, a JavaScript or an
// Extism guest (MapName), and a guest name from a display name (DeriveGuestName). They live
// here, not in abi, so that a guest built against abi does not link crypto/sha256.
package names

import (
	"crypto/sha256"
	"encoding/hex"

	"github.com/mcpwasm/mcpwasm/abi"
)

// MapName returns the name a tool or prompt named name is served under when name comes from
// another ecosystem's rules (an upstream MCP server, a JavaScript or Extism guest): name
// itself when abi.ValidName(name); otherwise each byte outside abi.NamePattern's set becomes "_" and
// the result is cut to 55 bytes and ends in "_" and 8 hex digits of the SHA-256 of name
// ("files.read" → "files_read_" + 8 hex digits). The result always matches abi.NamePattern, is
// the same across restarts, and differs for different originals, so a renamed name never
// takes another's (MCP 2025-11-25 "Tools" allows up to 128 characters and "." in tool names;
// abi.NamePattern is the subset every client accepts).
func MapName(name string) string {
	if abi.ValidName(name) {
		return name
	}
	sum := sha256.Sum256([]byte(name))
	suffix := "_" + hex.EncodeToString(sum[:4])
	clean := []byte(name)
	for i, c := range clean {
		if !nameByte(c) {
			clean[i] = '_'
		}
	}
	return string(clean[:min(len(clean), 64-len(suffix))]) + suffix
}

// DeriveGuestName returns a guest name (abi.NamePattern) made from a display name or a file
// name: ASCII letters lower-cased, each run of other characters than letters and digits
// becomes one "-", leading and trailing "-" dropped, cut to 64 bytes ("Weather Server" →
// "weather-server", "@acme/weather" → "acme-weather", "weather.mcp" → "weather-mcp"). It
// returns "" when s has no ASCII letter or digit.
func DeriveGuestName(s string) string {
	out := make([]byte, 0, min(len(s), 64))
	dash := false
	for i := 0; i < len(s) && len(out) < 64; i++ {
		c := s[i]
		switch {
		case c >= 'A' && c <= 'Z':
			c += 'a' - 'A'
		case c >= 'a' && c <= 'z' || c >= '0' && c <= '9':
		default:
			dash = len(out) > 0
			continue
		}
		if dash {
			if len(out) >= 63 {
				break
			}
			out = append(out, '-')
			dash = false
		}
		out = append(out, c)
	}
	return string(out)
}

// nameByte reports whether c may appear in a name (abi.NamePattern).
func nameByte(c byte) bool { return abi.ValidName(string(rune(c))) }

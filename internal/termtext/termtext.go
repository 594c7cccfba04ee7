// Package termtext shows text a server wrote on a terminal without letting it drive the
// terminal: the characters that a terminal obeys instead of printing, or that reorder what it
// prints, are shown escaped.
package termtext

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// IsControl reports whether r is a character a terminal acts on rather than shows, other than
// newline and tab: the C0 controls (ESC starts the sequences that clear the screen, move the
// cursor, set the window title or hide text; CR rewrites the line), DEL, the C1 controls
// (U+0080–U+009F: U+009B is CSI on a terminal that takes 8-bit controls), and the bidi
// embeddings, overrides and isolates U+202A–U+202E and U+2066–U+2069, which reorder the text
// after them ("Trojan Source"). It is the one table of these characters: the rule for what
// serve withholds from tool definitions (mcpserver's isHiddenRune) is built on it and adds
// zero-width and other format characters, which are ordinary in results (U+200C in Persian,
// U+200D in emoji) and harmless to a terminal.
func IsControl(r rune) bool {
	switch {
	case r == '\n' || r == '\t':
		return false
	case r < 0x20, r >= 0x7F && r <= 0x9F:
		return true
	case r >= 0x202A && r <= 0x202E, r >= 0x2066 && r <= 0x2069:
		return true
	}
	return false
}

// Escape returns s with every IsControl character written as an escape: `\x1b` for C0 and
// DEL, `\u009b` for C1, `\u202e` for the bidi controls; a byte that is not UTF-8 becomes
// `\xff`. Anything else, backslashes included, is left as it is, so text with no control
// character comes back unchanged.
func Escape(s string) string {
	if !needsEscape(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case IsControl(r) && r < 0x80:
			fmt.Fprintf(&b, `\x%02x`, r)
		case IsControl(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

func needsEscape(s string) bool {
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 || IsControl(r) {
			return true
		}
		i += n
	}
	return false
}

// Writer escapes (Escape) what is written to it and writes that to the underlying writer.
// Each Write is escaped on its own: a character split across two writes shows as the escapes
// of its bytes (fmt writes each formatted string whole). Write reports len(p) on success.
type Writer struct{ W io.Writer }

// Write implements io.Writer.
func (w Writer) Write(p []byte) (int, error) {
	if _, err := io.WriteString(w.W, Escape(string(p))); err != nil {
		return 0, err
	}
	return len(p), nil
}

package guest

import (
	"encoding/base64"
	"unicode/utf8"

	"github.com/mcpwasm/mcpwasm/abi"
)

// This file encodes tool results by hand, without reflection: a result is a fixed shape
// (abi.Result, abi.Content), so appending its JSON to a reused buffer is both simpler and
// ~100× cheaper in a guest than encoding/json, whose per-byte work is multiplied by the
// host's interruption checks. The output is what encoding/json with SetEscapeHTML(false)
// produces for the same value (encode_test.go checks it byte for byte).

// hex is the digit set encoding/json uses for \u00XX escapes.
const hex = "0123456789abcdef"

// plain[c] is true for the ASCII bytes a JSON string carries as they are (no escape).
var plain = func() (t [utf8.RuneSelf]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// appendString appends s to dst as a JSON string, quotes included, exactly as encoding/json
// with SetEscapeHTML(false) does: '"' and '\\' are escaped; control characters become \b, \f,
// \n, \r, \t or \u00XX (lowercase hex); U+2028 and U+2029 become \u2028 and \u2029; each byte
// of invalid UTF-8 becomes \ufffd (the replacement character, escaped); everything else,
// including '<', '>' and '&', is copied as it is.
func appendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0 // s[start:i] is pending, to be copied unchanged
	for i := 0; i < len(s); {
		// Skip 8 plain ASCII bytes at a time: no byte < 0x20, no '"', no '\\', no byte >= 0x80.
		for i+8 <= len(s) && plain8(load8(s, i)) {
			i += 8
		}
		if i >= len(s) {
			break
		}
		c := s[i]
		if c < utf8.RuneSelf {
			if plain[c] {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i++
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hex[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// AppendJSONString appends s to dst as a JSON string, quotes included, byte for byte as
// encoding/json with SetEscapeHTML(false) writes it (see appendString): for guests that
// encode their results by hand, e.g. in a MarshalJSON method, without linking encoding/json.
func AppendJSONString(dst []byte, s string) []byte { return appendString(dst, s) }

// load8 reads s[i:i+8] as a little-endian word (the compiler turns this into one load).
func load8(s string, i int) uint64 {
	_ = s[i+7]
	return uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
		uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
}

const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// plain8 reports whether all 8 bytes of x are plain ASCII (see plain).
func plain8(x uint64) bool {
	if x&highs != 0 { // a byte >= 0x80
		return false
	}
	// With every byte < 0x80, (b + 0x80 - n) has its high bit set exactly when b >= n, and
	// no byte carries into the next.
	if (x+ones*(0x80-0x20))&highs != highs { // a byte < 0x20
		return false
	}
	// A byte equal to '"' (or '\\') is zero after the xor; ((b ^ q) + 0x7f) has its high bit
	// set exactly when b ^ q is not zero.
	q, bs := x^(ones*'"'), x^(ones*'\\')
	return (q+ones*0x7f)&highs == highs && (bs+ones*0x7f)&highs == highs
}

// appendResult appends r as the JSON of an MCP CallToolResult, as encoding/json (without
// HTML escaping) would encode abi.Result. structured is r.StructuredContent, known to be
// valid JSON; encodeResult checks that before calling.
func appendResult(dst []byte, r *abi.Result) []byte {
	dst = append(dst, `{"content":[`...)
	for i, c := range r.Content {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendContent(dst, &c)
	}
	dst = append(dst, ']')
	if len(r.StructuredContent) > 0 {
		dst = append(dst, `,"structuredContent":`...)
		dst = append(dst, r.StructuredContent...)
	}
	if r.IsError {
		dst = append(dst, `,"isError":true`...)
	}
	return append(dst, '}')
}

// appendContent appends c as abi.Content's MarshalJSON encodes it: a text block is exactly
// {"type":"text","text":…}; any other block carries its non-empty fields.
func appendContent(dst []byte, c *abi.Content) []byte {
	dst = append(dst, `{"type":`...)
	dst = appendString(dst, c.Type)
	if c.Type == "text" {
		dst = append(dst, `,"text":`...)
		dst = appendString(dst, c.Text)
		return append(dst, '}')
	}
	if c.Text != "" {
		dst = append(dst, `,"text":`...)
		dst = appendString(dst, c.Text)
	}
	if len(c.Data) > 0 {
		dst = append(dst, `,"data":"`...)
		dst = base64.StdEncoding.AppendEncode(dst, c.Data)
		dst = append(dst, '"')
	}
	for _, f := range [...]struct{ key, val string }{{`,"mimeType":`, c.MIMEType}, {`,"uri":`, c.URI}, {`,"name":`, c.Name}} {
		if f.val != "" {
			dst = append(dst, f.key...)
			dst = appendString(dst, f.val)
		}
	}
	if c.Resource != nil {
		dst = append(dst, `,"resource":`...)
		dst = appendResourceContents(dst, c.Resource, true)
	}
	return append(dst, '}')
}

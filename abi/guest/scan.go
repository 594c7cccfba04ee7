package guest

import (
	"errors"
	"strconv"
)

// This file checks and compacts JSON without encoding/json, whose code (with reflect, fmt
// and the time methods they reach) is over a megabyte of a small guest. It is a copy of
// encoding/json's scanner in behaviour, not in code: the same inputs are valid, and an
// invalid input gets the same error text ("invalid character 'x' looking for beginning of
// object key string", "unexpected end of JSON input", …), because those texts reach users in
// tool errors. FuzzCheckValid holds the two to the same answers.

// maxDepth is encoding/json's nesting limit.
const maxDepth = 10000

// Scanner states; each names where the next byte is read.
const (
	sBeginValueOrEmpty = iota // after '['
	sBeginValue
	sBeginStringOrEmpty // after '{'
	sBeginString        // after ','  in an object
	sEndValue
	sEndTop
	sInString
	sInStringEsc
	sInStringEscU // then U1, U12, U123
	sInStringEscU1
	sInStringEscU12
	sInStringEscU123
	sNeg
	s1
	s0
	sDot
	sDot0
	sE
	sESign
	sE0
	sLit // in true, false or null: lit holds the rest to expect
	sError
)

// Parse states of an open object or array.
const (
	pObjectKey = iota
	pObjectValue
	pArrayValue
)

// scanner is encoding/json's state machine, one byte at a time.
type scanner struct {
	state  int
	stack  []byte // parse states of the open objects and arrays
	lit    string // the rest of a literal being read (after 't' of true: "rue")
	litCtx string // its error context
	endTop bool
	err    error
}

func (s *scanner) reset() {
	s.state, s.stack, s.endTop, s.err = sBeginValue, s.stack[:0], false, nil
}

// syntaxError is the error text encoding/json's SyntaxError carries.
func (s *scanner) fail(c byte, context string) bool {
	s.state = sError
	s.err = errors.New("invalid character " + quoteChar(c) + " " + context)
	return false
}

func isSpace(c byte) bool { return c <= ' ' && (c == ' ' || c == '\t' || c == '\r' || c == '\n') }

// step reads c and reports whether the input is still valid. space reports (when valid)
// whether c is insignificant space, which compaction drops.
func (s *scanner) step(c byte) (ok, space bool) {
	for {
		switch s.state {
		case sBeginValueOrEmpty:
			if isSpace(c) {
				return true, true
			}
			if c == ']' {
				s.state = sEndValue
				continue
			}
			s.state = sBeginValue
			continue
		case sBeginValue:
			if isSpace(c) {
				return true, true
			}
			switch c {
			case '{':
				s.state = sBeginStringOrEmpty
				return s.push(c, pObjectKey), false
			case '[':
				s.state = sBeginValueOrEmpty
				return s.push(c, pArrayValue), false
			case '"':
				s.state = sInString
			case '-':
				s.state = sNeg
			case '0':
				s.state = s0
			case 't':
				s.state, s.lit, s.litCtx = sLit, "rue", "in literal true (expecting "
			case 'f':
				s.state, s.lit, s.litCtx = sLit, "alse", "in literal false (expecting "
			case 'n':
				s.state, s.lit, s.litCtx = sLit, "ull", "in literal null (expecting "
			default:
				if '1' <= c && c <= '9' {
					s.state = s1
					return true, false
				}
				return s.fail(c, "looking for beginning of value"), false
			}
			return true, false
		case sBeginStringOrEmpty:
			if isSpace(c) {
				return true, true
			}
			if c == '}' {
				s.stack[len(s.stack)-1] = pObjectValue
				s.state = sEndValue
				continue
			}
			s.state = sBeginString
			continue
		case sBeginString:
			if isSpace(c) {
				return true, true
			}
			if c == '"' {
				s.state = sInString
				return true, false
			}
			return s.fail(c, "looking for beginning of object key string"), false
		case sEndValue:
			n := len(s.stack)
			if n == 0 {
				s.state, s.endTop = sEndTop, true
				continue
			}
			if isSpace(c) {
				return true, true
			}
			switch s.stack[n-1] {
			case pObjectKey:
				if c == ':' {
					s.stack[n-1] = pObjectValue
					s.state = sBeginValue
					return true, false
				}
				return s.fail(c, "after object key"), false
			case pObjectValue:
				if c == ',' {
					s.stack[n-1] = pObjectKey
					s.state = sBeginString
					return true, false
				}
				if c == '}' {
					s.pop()
					return true, false
				}
				return s.fail(c, "after object key:value pair"), false
			default:
				if c == ',' {
					s.state = sBeginValue
					return true, false
				}
				if c == ']' {
					s.pop()
					return true, false
				}
				return s.fail(c, "after array element"), false
			}
		case sEndTop:
			if !isSpace(c) {
				// encoding/json reports this at the end of the input; the text is the same.
				return s.fail(c, "after top-level value"), false
			}
			return true, true
		case sInString:
			switch {
			case c == '"':
				s.state = sEndValue
			case c == '\\':
				s.state = sInStringEsc
			case c < 0x20:
				return s.fail(c, "in string literal"), false
			}
			return true, false
		case sInStringEsc:
			switch c {
			case 'b', 'f', 'n', 'r', 't', '\\', '/', '"':
				s.state = sInString
			case 'u':
				s.state = sInStringEscU
			default:
				return s.fail(c, "in string escape code"), false
			}
			return true, false
		case sInStringEscU, sInStringEscU1, sInStringEscU12, sInStringEscU123:
			if '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F' {
				if s.state == sInStringEscU123 {
					s.state = sInString
				} else {
					s.state++
				}
				return true, false
			}
			return s.fail(c, "in \\u hexadecimal character escape"), false
		case sNeg:
			switch {
			case c == '0':
				s.state = s0
			case '1' <= c && c <= '9':
				s.state = s1
			default:
				return s.fail(c, "in numeric literal"), false
			}
			return true, false
		case s1:
			if '0' <= c && c <= '9' {
				return true, false
			}
			s.state = s0
			continue
		case s0:
			switch c {
			case '.':
				s.state = sDot
			case 'e', 'E':
				s.state = sE
			default:
				s.state = sEndValue
				continue
			}
			return true, false
		case sDot:
			if '0' <= c && c <= '9' {
				s.state = sDot0
				return true, false
			}
			return s.fail(c, "after decimal point in numeric literal"), false
		case sDot0:
			switch {
			case '0' <= c && c <= '9':
			case c == 'e' || c == 'E':
				s.state = sE
			default:
				s.state = sEndValue
				continue
			}
			return true, false
		case sE:
			if c == '+' || c == '-' {
				s.state = sESign
				return true, false
			}
			s.state = sESign
			continue
		case sESign:
			if '0' <= c && c <= '9' {
				s.state = sE0
				return true, false
			}
			return s.fail(c, "in exponent of numeric literal"), false
		case sE0:
			if '0' <= c && c <= '9' {
				return true, false
			}
			s.state = sEndValue
			continue
		case sLit:
			if c != s.lit[0] {
				return s.fail(c, s.litCtx+"'"+s.lit[:1]+"')"), false
			}
			if s.lit = s.lit[1:]; s.lit == "" {
				s.state = sEndValue
			}
			return true, false
		default: // sError
			return false, false
		}
	}
}

func (s *scanner) push(c byte, p byte) bool {
	s.stack = append(s.stack, p)
	if len(s.stack) > maxDepth {
		return s.fail(c, "exceeded max depth")
	}
	return true
}

func (s *scanner) pop() {
	s.stack = s.stack[:len(s.stack)-1]
	if len(s.stack) == 0 {
		s.state, s.endTop = sEndTop, true
	} else {
		s.state = sEndValue
	}
}

// eof reports whether the input read so far is one complete JSON value.
func (s *scanner) eof() bool {
	if s.err != nil {
		return false
	}
	if s.endTop {
		return true
	}
	if ok, _ := s.step(' '); ok && s.endTop {
		return true
	}
	if s.err == nil {
		s.err = errors.New("unexpected end of JSON input")
	}
	return false
}

// scan is reused by checkValid and appendCompact; the host never runs two calls in one
// instance at once.
var scan scanner

// checkValid returns nil if data is one JSON value (with surrounding space), else the error
// text json.Valid's checker (and so json.Unmarshal) gives.
func checkValid(data []byte) error {
	s := &scan
	s.reset()
	for _, c := range data {
		if ok, _ := s.step(c); !ok {
			return s.err
		}
	}
	if !s.eof() {
		return s.err
	}
	return nil
}

// appendCompact appends src without insignificant space, as encoding/json does to a
// json.RawMessage it marshals; with escapeHTML, '<', '>', '&', U+2028 and U+2029 in strings
// become \u escapes, as json.Marshal writes them. On invalid input it returns dst unchanged
// and encoding/json's error.
func appendCompact(dst, src []byte, escapeHTML bool) ([]byte, error) {
	orig := len(dst)
	s := &scan
	s.reset()
	start := 0
	for i := 0; i < len(src); i++ {
		c := src[i]
		if escapeHTML && (c == '<' || c == '>' || c == '&') {
			dst = append(dst, src[start:i]...)
			dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			start = i + 1
		}
		if escapeHTML && c == 0xE2 && i+2 < len(src) && src[i+1] == 0x80 && src[i+2]&^1 == 0xA8 {
			dst = append(dst, src[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hex[src[i+2]&0xF])
			start = i + 3
		}
		ok, space := s.step(c)
		if !ok {
			return dst[:orig], s.err
		}
		if space {
			dst = append(dst, src[start:i]...)
			start = i + 1
		}
	}
	if !s.eof() {
		return dst[:orig], s.err
	}
	if start < len(src) {
		dst = append(dst, src[start:]...)
	}
	return dst, nil
}

// quoteChar formats c as encoding/json's syntax errors do.
func quoteChar(c byte) string {
	if c == '\'' {
		return `'\''`
	}
	if c == '"' {
		return `'"'`
	}
	q := strconv.Quote(string(rune(c)))
	return "'" + q[1:len(q)-1] + "'"
}

// appendStringHTML is appendString with '<', '>' and '&' escaped as \u003c, \u003e and
// \u0026: a string as json.Marshal (HTML escaping on) writes it.
func appendStringHTML(dst []byte, s string) []byte {
	start := len(dst)
	dst = appendString(dst, s)
	// Rare: scan the appended text for the three bytes only if s holds one of them.
	for i := 0; i < len(s); i++ {
		if c := s[i]; c == '<' || c == '>' || c == '&' {
			return escapeHTMLTail(dst, start)
		}
	}
	return dst
}

// escapeHTMLTail rewrites '<', '>' and '&' in dst[start:] as \u escapes.
func escapeHTMLTail(dst []byte, start int) []byte {
	tail := append([]byte(nil), dst[start:]...)
	dst = dst[:start]
	for _, c := range tail {
		if c == '<' || c == '>' || c == '&' {
			dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			continue
		}
		dst = append(dst, c)
	}
	return dst
}

package extism

// validJSON reports whether b is one JSON value with optional white space around it, as
// encoding/json.Valid does (FuzzValidJSON holds it to that), in one pass that skips the
// plain bytes of a string in a tight loop: a plugin's 1 MiB result is mostly one string,
// and json.Valid's scanner took 3 ms of a 1 MiB echo's 8 ms there.
func validJSON(b []byte) bool {
	i, ok := jsonValue(b, skipSpace(b, 0), 0)
	return ok && skipSpace(b, i) == len(b)
}

// maxJSONDepth bounds nesting, as encoding/json does (10000), so a hostile output cannot
// exhaust the stack.
const maxJSONDepth = 10000

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// jsonValue checks the value at b[i:] and returns the index after it.
func jsonValue(b []byte, i, depth int) (int, bool) {
	if i >= len(b) {
		return i, false
	}
	switch c := b[i]; {
	case c == '{':
		return jsonComposite(b, i+1, depth+1, '}', true)
	case c == '[':
		return jsonComposite(b, i+1, depth+1, ']', false)
	case c == '"':
		return jsonString(b, i+1)
	case c == '-' || c >= '0' && c <= '9':
		return jsonNumber(b, i)
	case c == 't':
		return jsonLiteral(b, i, "true")
	case c == 'f':
		return jsonLiteral(b, i, "false")
	case c == 'n':
		return jsonLiteral(b, i, "null")
	}
	return i, false
}

// jsonComposite checks the members of an object (keyed) or the elements of an array after
// its opening bracket, up to and including end.
func jsonComposite(b []byte, i, depth int, end byte, keyed bool) (int, bool) {
	if depth > maxJSONDepth {
		return i, false
	}
	i = skipSpace(b, i)
	if i < len(b) && b[i] == end {
		return i + 1, true
	}
	for {
		var ok bool
		if keyed {
			if i >= len(b) || b[i] != '"' {
				return i, false
			}
			if i, ok = jsonString(b, i+1); !ok {
				return i, false
			}
			i = skipSpace(b, i)
			if i >= len(b) || b[i] != ':' {
				return i, false
			}
			i = skipSpace(b, i+1)
		}
		if i, ok = jsonValue(b, i, depth); !ok {
			return i, false
		}
		i = skipSpace(b, i)
		if i >= len(b) {
			return i, false
		}
		switch b[i] {
		case end:
			return i + 1, true
		case ',':
			i = skipSpace(b, i+1)
		default:
			return i, false
		}
	}
}

// jsonString checks a string's body after its opening quote, up to and including the
// closing quote. Like encoding/json.Valid it does not check UTF-8.
func jsonString(b []byte, i int) (int, bool) {
	for i < len(b) {
		c := b[i]
		switch {
		case c == '"':
			return i + 1, true
		case c < 0x20:
			return i, false
		case c == '\\':
			if i+1 >= len(b) {
				return i, false
			}
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(b) {
					return i, false
				}
				for _, h := range b[i+2 : i+6] {
					if !(h >= '0' && h <= '9' || h >= 'a' && h <= 'f' || h >= 'A' && h <= 'F') {
						return i, false
					}
				}
				i += 6
			default:
				return i, false
			}
		default:
			i++
		}
	}
	return i, false
}

// jsonNumber checks -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? at b[i:].
func jsonNumber(b []byte, i int) (int, bool) {
	digits := func(i int) (int, bool) {
		j := i
		for j < len(b) && b[j] >= '0' && b[j] <= '9' {
			j++
		}
		return j, j > i
	}
	if b[i] == '-' {
		i++
	}
	if i >= len(b) {
		return i, false
	}
	var ok bool
	if b[i] == '0' {
		i++
	} else if i, ok = digits(i); !ok {
		return i, false
	}
	if i < len(b) && b[i] == '.' {
		if i, ok = digits(i + 1); !ok {
			return i, false
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i, ok = digits(i); !ok {
			return i, false
		}
	}
	return i, true
}

func jsonLiteral(b []byte, i int, lit string) (int, bool) {
	if len(b)-i < len(lit) || string(b[i:i+len(lit)]) != lit {
		return i, false
	}
	return i + len(lit), true
}

package schema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"
)

// acceptsWave2 is Accepts before the single-pass scanner (three passes: json.Valid,
// mayOverflow, the schema walk), kept for BenchmarkValidateArgs.
func (f *Flat) acceptsWave2(args []byte) bool {
	if len(f.names) > 64 || !json.Valid(args) || mayOverflow(args) {
		return false // mayOverflow: decoding into any would reject the arguments
	}
	var seen uint64
	i := skipSpace(args, 0)
	if i >= len(args) || args[i] != '{' {
		return false
	}
	i = skipSpace(args, i+1)
	for i < len(args) && args[i] != '}' {
		if args[i] == ',' {
			i = skipSpace(args, i+1)
		}
		kEnd, escaped := stringEnd(args, i)
		if escaped {
			return false
		}
		key := args[i+1 : kEnd-1]
		i = skipSpace(args, kEnd)
		i = skipSpace(args, i+1) // ':'
		vStart := i
		i = valueEnd(args, i)
		if i < 0 {
			return false
		}
		idx := -1
		for j, n := range f.names {
			if n == string(key) {
				idx = j
				break
			}
		}
		if idx < 0 {
			if f.noExtra {
				return false
			}
		} else {
			if !scalarMatches(f.types[idx], args[vStart:i]) {
				return false
			}
			seen |= 1 << idx
		}
		i = skipSpace(args, i)
	}
	if skipSpace(args, i+1) != len(args) {
		return false
	}
	for _, r := range f.required {
		if seen&(1<<r) == 0 {
			return false
		}
	}
	return true
}

// stringEnd returns the index just past the string starting at b[i] (a '"'), and whether it
// contains an escape.
func stringEnd(b []byte, i int) (int, bool) {
	escaped := false
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			escaped = true
			j++
		case '"':
			return j + 1, escaped
		}
	}
	return len(b), escaped
}

// valueEnd returns the index just past the JSON value starting at b[i]; b is valid JSON.
func valueEnd(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		end, _ := stringEnd(b, i)
		return end
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				end, _ := stringEnd(b, j)
				j = end - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return j + 1
				}
			}
		}
		return -1
	}
	j := i
	for j < len(b) && b[j] != ',' && b[j] != '}' && b[j] != ']' && b[j] != ' ' && b[j] != '\t' && b[j] != '\n' && b[j] != '\r' {
		j++
	}
	return j
}

// mayOverflow reports whether valid JSON b holds a number that might not fit a float64 —
// one with an exponent, or with 309 or more integer digits — which decoding into any rejects.
func mayOverflow(b []byte) bool {
	inString, escaped, digits := false, false, 0
	for _, c := range b {
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString, digits = true, 0
		case c >= '0' && c <= '9':
			if digits++; digits >= 309 {
				return true
			}
		case (c == 'e' || c == 'E') && digits > 0:
			return true
		default:
			digits = 0
		}
	}
	return false
}

// BenchmarkAcceptsWave2 compares Accepts with acceptsWave2 on the echo guest's schema
// ({"text": string}, required), valid arguments of 100 B, 10 KiB and 1 MiB.
func BenchmarkAcceptsWave2(b *testing.B) {
	f := CompileFlat(json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`))
	for _, n := range []int{100, 10 << 10, 1 << 20} {
		args := append(append([]byte(`{"text":"`), bytes.Repeat([]byte("a"), n-11)...), `"}`...)
		for name, accepts := range map[string]func([]byte) bool{"flat": f.Accepts, "flat-wave2": f.acceptsWave2} {
			b.Run(fmt.Sprintf("%s/%d", name, n), func(b *testing.B) {
				b.ReportAllocs()
				b.SetBytes(int64(n))
				for b.Loop() {
					if !accepts(args) {
						b.Fatal("refused")
					}
				}
			})
		}
	}
}

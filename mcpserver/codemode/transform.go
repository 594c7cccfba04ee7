package codemode

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/evanw/esbuild/pkg/api"
)

// SyntaxError is a program that does not parse: Line and Column (1-based) are in the
// caller's source.
type SyntaxError struct {
	Line, Column int
	Message      string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("syntax error at line %d, column %d: %s", e.Line, e.Column, e.Message)
}

// wrapHead is put before the program, on a line of its own, so the program's line n is the
// wrapped source's line n+1.
const wrapHead = "(async (tools) => {\n"

// program is a stripped program: JS is an expression whose value is an async function of
// tools; lines maps a line of JS (0-based) to the caller's line (1-based; 0: none).
type program struct {
	JS    string
	lines []int
}

// transform strips TypeScript syntax from src (TypeScript or JavaScript: plain JavaScript
// is TypeScript) with esbuild, wrapped as the body of an async function of tools, so the
// program may await and return at its top level. A syntax error is a *SyntaxError.
func transform(src string) (*program, error) {
	res := api.Transform(wrapHead+src+"\n})", api.TransformOptions{
		Loader:    api.LoaderTS,
		Target:    api.ES2023,
		Sourcemap: api.SourceMapExternal,
		LogLevel:  api.LogLevelSilent,
	})
	if len(res.Errors) > 0 {
		e := res.Errors[0]
		se := &SyntaxError{Message: e.Text}
		if l := e.Location; l != nil {
			se.Line, se.Column = l.Line-1, l.Column+1
			if se.Line < 1 { // an error in the wrapper's head cannot be: the head parses
				se.Line = 1
			}
		}
		return nil, se
	}
	p := &program{JS: string(res.Code)}
	p.lines = lineMap(res.Map, strings.Count(p.JS, "\n")+1)
	return p, nil
}

// line returns the caller's line (1-based) of generated line gen (1-based), 0 if unknown.
func (p *program) line(gen int) int {
	if gen < 1 || gen > len(p.lines) {
		return 0
	}
	return p.lines[gen-1]
}

// lineMap decodes a source map (revision 3) into the first original line (1-based, less
// the wrapper's head) of each generated line.
func lineMap(raw []byte, n int) []int {
	out := make([]int, n)
	var m struct {
		Mappings string `json:"mappings"`
	}
	if json.Unmarshal(raw, &m) != nil {
		return out
	}
	origLine := 0
	for gen, group := range strings.Split(m.Mappings, ";") {
		first := true
		for _, seg := range strings.Split(group, ",") {
			f := decodeVLQ(seg)
			if len(f) < 4 {
				continue
			}
			origLine += f[2]
			if first && gen < n {
				out[gen] = origLine // 0-based in the wrapped source = 1-based in the caller's
				first = false
			}
		}
	}
	return out
}

// decodeVLQ decodes one source-map segment's base64 VLQ fields.
func decodeVLQ(s string) []int {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
	var out []int
	v, shift := 0, 0
	for i := 0; i < len(s); i++ {
		d := strings.IndexByte(alphabet, s[i])
		if d < 0 {
			return nil
		}
		v += (d & 31) << shift
		if d&32 != 0 {
			shift += 5
			continue
		}
		if v&1 != 0 {
			out = append(out, -(v >> 1))
		} else {
			out = append(out, v>>1)
		}
		v, shift = 0, 0
	}
	return out
}

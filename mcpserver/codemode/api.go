package codemode

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"unicode"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// decl is one callable tool: tools.<group>.<method> calls the served tool.
type decl struct {
	group, method string
	tool          *mcp.Tool
}

// apiSet is what programs may call: the table the runner builds tools from
// (group → method → served name), each tool by served name, and the declarations.
type apiSet struct {
	table         map[string]map[string]string
	byName        map[string]*decl
	decls         []*decl // in the order of the tools given
	compact, full string
	perServer     map[string]string // group → its declarations, with descriptions
}

// buildAPI declares tools grouped by group(name), keeping those allowed(group, method).
func buildAPI(tools []*mcp.Tool, group func(string) string, allowed func(group, tool string) bool) *apiSet {
	set := &apiSet{table: map[string]map[string]string{}, byName: map[string]*decl{}, perServer: map[string]string{}}
	byGroup := map[string][]*decl{}
	for _, t := range tools {
		g := ident(group(t.Name))
		m := t.Name
		if gr := group(t.Name); gr != "" {
			for _, sep := range []string{"__", "_", "."} { // NAME__tool of an exposed upstream, a tool_prefix
				if rest, ok := strings.CutPrefix(m, gr+sep); ok && rest != "" {
					m = rest
					break
				}
			}
		}
		m = ident(m)
		if !allowed(g, m) && !allowed(group(t.Name), t.Name) {
			continue
		}
		if set.table[g] == nil {
			set.table[g] = map[string]string{}
		}
		for base, i := m, 2; set.table[g][m] != ""; i++ {
			m = fmt.Sprintf("%s%d", base, i)
		}
		set.table[g][m] = t.Name
		d := &decl{group: g, method: m, tool: t}
		set.byName[t.Name] = d
		set.decls = append(set.decls, d)
		byGroup[g] = append(byGroup[g], d)
	}
	groups := make([]string, 0, len(byGroup))
	for g := range byGroup {
		groups = append(groups, g)
	}
	sort.Strings(groups)
	var c, f strings.Builder
	c.WriteString("declare const tools: {\n")
	f.WriteString("declare const tools: {\n")
	for _, g := range groups {
		ds := byGroup[g]
		sort.Slice(ds, func(i, j int) bool { return ds[i].method < ds[j].method })
		fmt.Fprintf(&c, "  %s: {\n", g)
		fmt.Fprintf(&f, "  %s: {\n", g)
		groupStart := f.Len()
		for _, d := range ds {
			in, out := tsType(d.tool.InputSchema, 0), "unknown"
			if d.tool.OutputSchema != nil {
				out = tsType(d.tool.OutputSchema, 0)
			}
			ro := ""
			if d.tool.Annotations != nil && d.tool.Annotations.ReadOnlyHint {
				ro = " // read-only"
			}
			fmt.Fprintf(&c, "    %s(args: %s): Promise<%s>;%s\n", d.method, in, out, ro)
			if d.tool.Description != "" {
				fmt.Fprintf(&f, "    /** %s */\n", strings.ReplaceAll(d.tool.Description, "*/", "* /"))
			}
			fmt.Fprintf(&f, "    %s(args: %s): Promise<%s>;%s\n", d.method, in, out, ro)
		}
		c.WriteString("  };\n")
		set.perServer[g] = "declare const tools: {\n  " + g + ": {\n" + f.String()[groupStart:] + "  };\n};\n"
		f.WriteString("  };\n")
	}
	c.WriteString("};")
	f.WriteString("};\n")
	set.compact, set.full = c.String(), f.String()
	return set
}

// ident makes s a JavaScript identifier: camelCase over the characters that cannot be in one.
func ident(s string) string {
	var b strings.Builder
	up := false
	for _, r := range s {
		if r == '_' || r == '$' || unicode.IsLetter(r) || unicode.IsDigit(r) {
			if up && b.Len() > 0 {
				r = unicode.ToUpper(r)
			}
			b.WriteRune(r)
			up = false
			continue
		}
		up = true
	}
	out := b.String()
	if out == "" || unicode.IsDigit(rune(out[0])) {
		out = "_" + out
	}
	return out
}

// tsType writes a JSON Schema as a compact TypeScript type: objects, arrays, the primitive
// types, enum and const as literal unions, anyOf/oneOf as unions; anything else unknown.
func tsType(schema any, depth int) string {
	var s map[string]any
	switch v := schema.(type) {
	case map[string]any:
		s = v
	case nil:
		return "unknown"
	default:
		b, err := json.Marshal(v)
		if err != nil || json.Unmarshal(b, &s) != nil {
			return "unknown"
		}
	}
	if depth > 6 {
		return "unknown"
	}
	if e, ok := s["enum"].([]any); ok && len(e) > 0 {
		parts := make([]string, len(e))
		for i, x := range e {
			b, _ := json.Marshal(x)
			parts[i] = string(b)
		}
		return strings.Join(parts, " | ")
	}
	if c, ok := s["const"]; ok {
		b, _ := json.Marshal(c)
		return string(b)
	}
	for _, k := range []string{"anyOf", "oneOf"} {
		if alts, ok := s[k].([]any); ok && len(alts) > 0 {
			parts := make([]string, len(alts))
			for i, a := range alts {
				parts[i] = tsType(a, depth+1)
			}
			return strings.Join(parts, " | ")
		}
	}
	switch t := s["type"].(type) {
	case []any:
		parts := make([]string, 0, len(t))
		for _, x := range t {
			c := map[string]any{}
			for k, v := range s {
				c[k] = v
			}
			c["type"] = x
			parts = append(parts, tsType(c, depth+1))
		}
		return strings.Join(parts, " | ")
	case string:
		switch t {
		case "string":
			return "string"
		case "number", "integer":
			return "number"
		case "boolean":
			return "boolean"
		case "null":
			return "null"
		case "array":
			item := tsType(s["items"], depth+1)
			if strings.ContainsAny(item, "| ") {
				item = "(" + item + ")"
			}
			return item + "[]"
		case "object":
			return objectType(s, depth)
		}
	}
	if _, ok := s["properties"]; ok {
		return objectType(s, depth)
	}
	return "unknown"
}

func objectType(s map[string]any, depth int) string {
	props, _ := s["properties"].(map[string]any)
	if len(props) == 0 {
		if ap, ok := s["additionalProperties"].(map[string]any); ok {
			return "Record<string, " + tsType(ap, depth+1) + ">"
		}
		return "Record<string, unknown>"
	}
	req := map[string]bool{}
	if r, ok := s["required"].([]any); ok {
		for _, x := range r {
			if n, ok := x.(string); ok {
				req[n] = true
			}
		}
	}
	names := make([]string, 0, len(props))
	for n := range props {
		names = append(names, n)
	}
	sort.Strings(names)
	parts := make([]string, len(names))
	for i, n := range names {
		key := n
		if ident(n) != n {
			b, _ := json.Marshal(n)
			key = string(b)
		}
		opt := "?"
		if req[n] {
			opt = ""
		}
		parts[i] = key + opt + ": " + tsType(props[n], depth+1)
	}
	return "{ " + strings.Join(parts, "; ") + " }"
}

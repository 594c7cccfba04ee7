package schema

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// Unenforced is one keyword of a tool's schema the host leaves out of its own validation
// because Go's regexp cannot run the ECMA-262 regular expression it holds (RATIONALE.md,
// "Why are schema patterns the host cannot compile left to the guest?"). The schema advertised in tools/list
// keeps it; only the guest can check it.
type Unenforced struct {
	Path    string // JSON Pointer (RFC 6901) of the keyword in the schema, e.g. "/properties/pw/pattern"
	Pattern string // the regular expression as the guest wrote it; "" for a keyword left out with it
	Why     string // what Go's regexp lacks, e.g. "Go's regexp has no lookahead"
}

// Resolve resolves raw for the host's validation; see ResolveHost.
func Resolve(raw json.RawMessage) (*jsonschema.Resolved, error) {
	r, _, err := ResolveHost(raw)
	return r, err
}

// ResolveHost unmarshals and resolves raw (a tool's input or output schema) for the
// host's own validation. JSON Schema's "pattern" and "patternProperties" keys are ECMA-262
// regular expressions (JSON Schema 2020-12 core §6.4), which jsonschema-go compiles with Go's
// RE2 regexp. A pattern Go cannot compile but that is well-formed once its ECMA-only
// constructs (lookaround, back-references, \u and \c escapes, [] and [^]) are set aside is
// left out of the host's copy and returned as Unenforced; a patternProperties key left out
// also takes its object's additionalProperties and every unevaluatedProperties of the
// schema with it (the host can no longer tell which properties it matches), so the host
// refuses nothing the guest's schema admits. A pattern malformed in both dialects is an
// error naming its path.
func ResolveHost(raw json.RawMessage) (*jsonschema.Resolved, []Unenforced, error) {
	if len(raw) == 0 {
		return nil, nil, errors.New("missing")
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, nil, err
	}
	var skipped []Unenforced
	droppedKey := false
	err := walkSchemas(&s, "", func(sub *jsonschema.Schema, path string) error {
		if sub.Pattern != "" {
			why, err := hostRegexp(sub.Pattern)
			if err != nil {
				return fmt.Errorf("%s/pattern: %w", path, err)
			}
			if why != "" {
				skipped = append(skipped, Unenforced{Path: path + "/pattern", Pattern: sub.Pattern, Why: why})
				sub.Pattern = ""
			}
		}
		for _, key := range slices.Sorted(maps.Keys(sub.PatternProperties)) {
			why, err := hostRegexp(key)
			if err != nil {
				return fmt.Errorf("%s/patternProperties: key %w", path, err)
			}
			if why == "" {
				continue
			}
			skipped = append(skipped, Unenforced{Path: path + "/patternProperties/" + pointerToken(key), Pattern: key, Why: why})
			delete(sub.PatternProperties, key)
			droppedKey = true
			if sub.AdditionalProperties != nil {
				sub.AdditionalProperties = nil
				skipped = append(skipped, Unenforced{Path: path + "/additionalProperties", Why: "it depends on a patternProperties key left out"})
			}
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	if droppedKey {
		_ = walkSchemas(&s, "", func(sub *jsonschema.Schema, path string) error {
			if sub.UnevaluatedProperties != nil {
				sub.UnevaluatedProperties = nil
				skipped = append(skipped, Unenforced{Path: path + "/unevaluatedProperties", Why: "it may depend on a patternProperties key left out"})
			}
			return nil
		})
	}
	r, err := s.Resolve(nil)
	return r, skipped, err
}

// hostRegexp judges an ECMA-262 pattern for the host: why == "" and err == nil when Go's
// regexp compiles it (the host enforces it); why says what Go lacks when only ECMA-only
// constructs or Go's size limits stop it; err when the pattern is malformed even with those
// set aside.
func hostRegexp(pattern string) (why string, err error) {
	_, goErr := regexp.Compile(pattern)
	if goErr == nil {
		return "", nil
	}
	rewritten, lacks := ecmaToGoSyntax(pattern)
	_, err = syntax.Parse(rewritten, syntax.Perl)
	se, _ := errors.AsType[*syntax.Error](err)
	switch {
	case err == nil && len(lacks) == 0:
		// Only counted repetitions differ, each within 1000: their product is over Go's limit.
		lacks = []string{"nested repeat counts over 1000 in all"}
	case err == nil:
	case se != nil && (se.Code == syntax.ErrNestingDepth || se.Code == syntax.ErrLarge):
		return "Go's regexp has a size limit: " + string(se.Code), nil
	case rewritten == pattern:
		return "", fmt.Errorf("%q: %w", pattern, goErr)
	case se != nil:
		// The rewritten text would mislead; the code alone names the fault.
		return "", fmt.Errorf("%q is not a regular expression: %v", pattern, se.Code)
	default:
		return "", fmt.Errorf("%q is not a regular expression: %w", pattern, err)
	}
	return "Go's regexp has no " + strings.Join(lacks, ", no "), nil
}

// ecmaToGoSyntax returns pattern with each ECMA-262 construct Go's regexp lacks replaced by
// Go syntax of the same shape — lookaround by a non-capturing group, a back-reference by an
// empty group, \uXXXX, \u{X} and \cX by \x{…}, a Unicode property Go does not know by \pL,
// [] and [^] by an explicit class, \b in a class
// by \x08, a well-formed repeat count by {1} (Go allows none over 1000, nor nested ones
// over 1000 in all; one over 1000 is named) — and the names of the constructs it replaced, in order of first appearance. The
// result is only parsed, to check the rest of the pattern is well-formed; it never matches
// anything (a lookaround is not a group).
func ecmaToGoSyntax(p string) (string, []string) {
	var b strings.Builder
	var lacks []string
	note := func(s string) {
		if !slices.Contains(lacks, s) {
			lacks = append(lacks, s)
		}
	}
	inClass := false
	for i := 0; i < len(p); {
		c := p[i]
		switch {
		case c == '\\' && i+1 < len(p):
			n := p[i+1]
			switch {
			case n >= '1' && n <= '9' && !inClass:
				j := i + 2
				for j < len(p) && p[j] >= '0' && p[j] <= '9' {
					j++
				}
				b.WriteString("(?:)")
				note("back-references")
				i = j
				continue
			case n == 'k' && !inClass && strings.HasPrefix(p[i+2:], "<") && strings.Contains(p[i:], ">"):
				b.WriteString("(?:)")
				note("back-references")
				i += strings.IndexByte(p[i:], '>') + 1
				continue
			case n == 'u' && strings.HasPrefix(p[i+2:], "{") && strings.Contains(p[i:], "}"):
				j := i + strings.IndexByte(p[i:], '}')
				b.WriteString(`\x` + p[i+2:j+1])
				note(`\u escapes`)
				i = j + 1
				continue
			case n == 'u' && i+6 <= len(p) && isHexString(p[i+2:i+6]):
				b.WriteString(`\x{` + p[i+2:i+6] + `}`)
				note(`\u escapes`)
				i += 6
				continue
			case n == 'c' && i+2 < len(p) && isASCIILetter(p[i+2]):
				fmt.Fprintf(&b, `\x{%02X}`, p[i+2]%32)
				note(`\c escapes`)
				i += 3
				continue
			case (n == 'p' || n == 'P') && strings.HasPrefix(p[i+2:], "{") && strings.Contains(p[i:], "}"):
				// A Unicode property escape (with the u flag): Go knows the general categories
				// and scripts by their short names (\p{L}, \p{Greek}), not Script=, sc=, or
				// binary properties such as Extended_Pictographic (z.emoji()).
				j := i + strings.IndexByte(p[i:], '}')
				if _, err := syntax.Parse(p[i:j+1], syntax.Perl); err != nil {
					b.WriteString(`\` + string(n) + `L`)
					note("Unicode property " + p[i+3:j])
					i = j + 1
					continue
				}
			case n == 'b' && inClass:
				b.WriteString(`\x08`)
				note(`\b (backspace) in a class`)
				i += 2
				continue
			}
			b.WriteString(p[i : i+2])
			i += 2
			continue
		case inClass:
			if c == ']' {
				inClass = false
			}
		case strings.HasPrefix(p[i:], "[]"):
			b.WriteString(`[^\x00-\x{10FFFF}]`)
			note("empty classes")
			i += 2
			continue
		case strings.HasPrefix(p[i:], "[^]"):
			b.WriteString(`[\x00-\x{10FFFF}]`)
			note("[^]")
			i += 3
			continue
		case c == '{':
			if n := repeatCount.FindStringSubmatch(p[i:]); n != nil && (n[3] == "" || cmpDecimal(n[1], n[3]) <= 0) {
				b.WriteString("{1}")
				if cmpDecimal(n[1], "1000") > 0 || cmpDecimal(n[3], "1000") > 0 {
					note("repeat counts over 1000")
				}
				i += len(n[0])
				continue
			}
		case c == '[':
			inClass = true
			if strings.HasPrefix(p[i:], "[^") {
				b.WriteString("[^")
				i += 2
				continue
			}
		case strings.HasPrefix(p[i:], "(?=") || strings.HasPrefix(p[i:], "(?!"):
			b.WriteString("(?:")
			note("lookahead")
			i += 3
			continue
		case strings.HasPrefix(p[i:], "(?<=") || strings.HasPrefix(p[i:], "(?<!"):
			b.WriteString("(?:")
			note("lookbehind")
			i += 4
			continue
		}
		b.WriteByte(c)
		i++
	}
	return b.String(), lacks
}

// repeatCount matches a counted repetition: {n}, {n,} or {n,m}.
var repeatCount = regexp.MustCompile(`^\{([0-9]+)(?:(,)([0-9]*))?\}`)

// cmpDecimal compares two unsigned decimal numbers of any length ("" is 0).
func cmpDecimal(a, b string) int {
	a, b = strings.TrimLeft(a, "0"), strings.TrimLeft(b, "0")
	if len(a) != len(b) {
		return cmp.Compare(len(a), len(b))
	}
	return strings.Compare(a, b)
}

func isHexString(s string) bool {
	for i := range len(s) {
		if !isHex(s[i]) {
			return false
		}
	}
	return true
}

func isASCIILetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

// pointerToken escapes a JSON Pointer reference token (RFC 6901 §3).
func pointerToken(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

var (
	schemaPtrType   = reflect.TypeFor[*jsonschema.Schema]()
	schemaSliceType = reflect.TypeFor[[]*jsonschema.Schema]()
	schemaMapType   = reflect.TypeFor[map[string]*jsonschema.Schema]()
)

// untaggedSchemaFields names the jsonschema.Schema fields that its own (un)marshalling
// reads and writes under a JSON name their tag does not give.
var untaggedSchemaFields = map[string]string{"Items": "items", "ItemsArray": "items", "DependencySchemas": "dependencies"}

// walkSchemas calls f on s and, depth first, on every schema under it (every field of
// jsonschema.Schema holding a schema, a list or a map of them, found by reflection so a
// field added upstream is walked too), with each one's JSON Pointer from the root ("" for
// the root). It stops at f's first error.
func walkSchemas(s *jsonschema.Schema, path string, f func(*jsonschema.Schema, string) error) error {
	if s == nil {
		return nil
	}
	if err := f(s, path); err != nil {
		return err
	}
	v := reflect.ValueOf(s).Elem()
	for _, sf := range reflect.VisibleFields(v.Type()) {
		name, _, _ := strings.Cut(sf.Tag.Get("json"), ",")
		if name == "" || name == "-" {
			name = untaggedSchemaFields[sf.Name]
			if name == "" {
				name = sf.Name
			}
		}
		fv := v.FieldByIndex(sf.Index)
		switch sf.Type {
		case schemaPtrType:
			if err := walkSchemas(fv.Interface().(*jsonschema.Schema), path+"/"+name, f); err != nil {
				return err
			}
		case schemaSliceType:
			for i, c := range fv.Interface().([]*jsonschema.Schema) {
				if err := walkSchemas(c, fmt.Sprintf("%s/%s/%d", path, name, i), f); err != nil {
					return err
				}
			}
		case schemaMapType:
			m := fv.Interface().(map[string]*jsonschema.Schema)
			for _, k := range slices.Sorted(maps.Keys(m)) {
				if err := walkSchemas(m[k], path+"/"+name+"/"+pointerToken(k), f); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

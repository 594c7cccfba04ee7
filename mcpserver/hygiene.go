package mcpserver

import (
	"encoding/json"
	"fmt"
	"unicode"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/internal/termtext"
	"github.com/mcpwasm/mcpwasm/runtime"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Description hygiene. A model reads the names, titles, descriptions and schemas of tools,
// prompts and resources; the user approving them usually does not see characters that render
// as nothing. Invisible characters can hide instructions for the model in text that looks
// harmless ("tool poisoning"), so anything carrying them is withheld unless the operator
// allows it.

// isHiddenRune reports whether r renders as nothing (or moves text around) wherever it
// appears: the characters a terminal obeys instead of printing (termtext.IsControl: the C0
// and C1 controls except tab and newline, so also ESC, which starts ANSI escape sequences that
// a terminal uses to conceal or rewrite text; DEL; the bidi embeddings, overrides and
// isolates); every Unicode format character (category Cf: zero-width and directional marks,
// the Arabic letter mark U+061C, the Mongolian vowel separator U+180E, word joiner and
// invisible operators, U+FEFF, soft hyphen U+00AD, the tag block U+E0000–U+E007F,
// interlinear annotations, …); the variation selectors U+E0100–U+E01EF; the Hangul and Khmer
// fillers U+115F, U+1160, U+3164, U+FFA0, U+17B4, U+17B5 and the combining grapheme joiner
// U+034F; and the line and paragraph separators. The terminal's set is termtext's table, not
// a copy (TestTerminalControlsAreHidden). The variation selectors U+FE00–U+FE0F are hidden
// too, except in one place: see hiddenAt.
func isHiddenRune(r rune) bool {
	switch {
	case termtext.IsControl(r):
		return true
	case unicode.Is(unicode.Cf, r):
		return true
	case r >= 0xFE00 && r <= 0xFE0F, r >= 0xE0100 && r <= 0xE01EF:
		return true
	case r == 0x034F, r == 0x115F, r == 0x1160, r == 0x17B4, r == 0x17B5, r == 0x3164, r == 0xFFA0,
		r == 0x2028, r == 0x2029:
		return true
	case r >= 0xE0000 && r <= 0xE0FFF: // tags and unassigned planes-14 code points
		return true
	}
	return false
}

// hiddenAt returns the first hidden character of s (see isHiddenRune). Two exceptions keep
// emoji usable:
//
//   - a single U+FE0E or U+FE0F (text or emoji presentation) right after a symbol (category
//     So, e.g. "⚠\uFE0F") or an Extended_Pictographic character ("‼\uFE0E");
//   - the joiners and selectors inside an emoji sequence as UTS #51 defines it (see
//     emojiSequence): ZWJ sequences such as 👩‍💻 or 🏳️‍🌈, keycaps such as 1️⃣, and the three
//     subdivision flags (England, Scotland, Wales) spelled with tag characters.
//
// Anything else stays hidden: a variation selector after a letter or a second one in a row, a
// supplementary selector, a ZWJ with no emoji on either side ("a\u200db", at the start or end
// of the text, between an emoji and a letter), a tag character outside those three flags.
func hiddenAt(s string) (rune, bool) {
	rs := []rune(s)
	var prev rune = -1
	prevVS := false
	for i := 0; i < len(rs); {
		if n := emojiSequence(rs[i:]); n > 0 {
			i += n
			prev = rs[i-1]
			prevVS = prev == 0xFE0F
			continue
		}
		r := rs[i]
		i++
		if (r == 0xFE0E || r == 0xFE0F) && !prevVS && prev >= 0 && (unicode.Is(unicode.So, prev) || unicode.Is(extendedPictographic, prev)) {
			prev, prevVS = r, true
			continue
		}
		if isHiddenRune(r) {
			return r, true
		}
		prev, prevVS = r, false
	}
	return 0, false
}

// emojiSequence returns the number of runes at the start of rs that form an emoji ZWJ
// sequence (UTS #51 ED-16: emoji_zwj_element ( ZWJ emoji_zwj_element )+) or a single element
// (see emojiElement), or 0. A ZWJ is taken only when an element follows it, so a trailing
// ZWJ is left for the caller to report.
func emojiSequence(rs []rune) int {
	n := emojiElement(rs)
	if n == 0 {
		return 0
	}
	for n+1 < len(rs) && rs[n] == 0x200D {
		m := emojiElement(rs[n+1:])
		if m == 0 {
			break
		}
		n += 1 + m
	}
	return n
}

// emojiElement returns the length of the emoji_zwj_element (UTS #51 ED-15a) at the start of
// rs, or 0: a keycap sequence ([0-9#*] U+FE0F U+20E3, ED-14c); a flag (two regional
// indicators, ED-14); or an Extended_Pictographic character followed by an emoji
// presentation selector U+FE0F (ED-9a) or a skin-tone modifier (ED-13), and for U+1F3F4 by
// one of the recommended subdivision tag sequences (ED-14a). Tag sequences are limited to
// those three because a tag spec is invisible text of the sender's choosing: "any tag
// sequence" would let ASCII ride after every black flag.
func emojiElement(rs []rune) int {
	if len(rs) == 0 {
		return 0
	}
	r := rs[0]
	if len(rs) >= 3 && (r >= '0' && r <= '9' || r == '#' || r == '*') && rs[1] == 0xFE0F && rs[2] == 0x20E3 {
		return 3
	}
	if isRegionalIndicator(r) {
		if len(rs) >= 2 && isRegionalIndicator(rs[1]) {
			return 2
		}
		return 0
	}
	if !unicode.Is(extendedPictographic, r) {
		return 0
	}
	n := 1
	if n < len(rs) && (rs[n] == 0xFE0F || rs[n] >= 0x1F3FB && rs[n] <= 0x1F3FF) {
		n++
	}
	if r == 0x1F3F4 {
		n += subdivisionTag(rs[n:])
	}
	return n
}

func isRegionalIndicator(r rune) bool { return r >= 0x1F1E6 && r <= 0x1F1FF }

// rgiSubdivisionTags are the tag specs of the subdivision flags Unicode recommends (RGI):
// 🏴 followed by these tags and U+E007F CANCEL TAG.
var rgiSubdivisionTags = []string{"gbeng", "gbsct", "gbwls"}

// subdivisionTag returns the length of one of rgiSubdivisionTags, written in tag characters
// and closed by CANCEL TAG, at the start of rs, or 0.
func subdivisionTag(rs []rune) int {
next:
	for _, spec := range rgiSubdivisionTags {
		if len(rs) < len(spec)+1 {
			continue
		}
		for i, c := range spec {
			if rs[i] != 0xE0000+c {
				continue next
			}
		}
		if rs[len(spec)] == 0xE007F {
			return len(spec) + 1
		}
	}
	return 0
}

// hiddenTextError says where a tool's text hides a character (see isHiddenRune).
type hiddenTextError struct {
	Kind  string // "tool" (when empty), "prompt", "resource", "resource template"
	Tool  string // the name of the tool, prompt or resource
	Field string // "title", "description", "inputSchema", "outputSchema", "annotations.title", "arguments[0].description", …
	Rune  rune
}

func (e *hiddenTextError) Error() string {
	kind := e.Kind
	if kind == "" {
		kind = "tool"
	}
	return fmt.Sprintf("%s %q: %s contains hidden character U+%04X", kind, e.Tool, e.Field, e.Rune)
}

// CheckGuestTool is checkHiddenText for a tool as a guest's manifest declares it; a
// declaration that is not valid MCP is reported as such.
func CheckGuestTool(td abi.Tool) error {
	t, err := mcpTool(td)
	if err != nil {
		return fmt.Errorf("tool %q: %w", td.Name, err)
	}
	return checkHiddenText(t)
}

// checkHiddenText returns a *hiddenTextError for the first hidden character in t's name,
// title, description, annotation title, or any string (key or value) of its input and output
// schemas, or nil if there is none. Schemas are decoded first, so an escaped "\u200b" is found
// too.
func checkHiddenText(t *mcp.Tool) error {
	check := func(field, s string) error {
		if r, ok := hiddenAt(s); ok {
			return &hiddenTextError{Tool: t.Name, Field: field, Rune: r}
		}
		return nil
	}
	fields := [][2]string{{"name", t.Name}, {"title", t.Title}, {"description", t.Description}}
	if t.Annotations != nil {
		fields = append(fields, [2]string{"annotations.title", t.Annotations.Title})
	}
	for _, f := range fields {
		if err := check(f[0], f[1]); err != nil {
			return err
		}
	}
	for _, sc := range []struct {
		field  string
		schema any
	}{{"inputSchema", t.InputSchema}, {"outputSchema", t.OutputSchema}} {
		if sc.schema == nil {
			continue
		}
		b, err := json.Marshal(sc.schema)
		if err != nil {
			continue // AddTool reports an unusable schema
		}
		var v any
		if json.Unmarshal(b, &v) != nil {
			continue
		}
		if r, ok := hiddenIn(v); ok {
			return &hiddenTextError{Tool: t.Name, Field: sc.field, Rune: r}
		}
	}
	return nil
}

// hiddenIn walks a decoded JSON value for a hidden character in any string or object key.
func hiddenIn(v any) (rune, bool) {
	str := hiddenAt
	switch v := v.(type) {
	case string:
		return str(v)
	case []any:
		for _, e := range v {
			if r, ok := hiddenIn(e); ok {
				return r, true
			}
		}
	case map[string]any:
		for k, e := range v {
			if r, ok := str(k); ok {
				return r, true
			}
			if r, ok := hiddenIn(e); ok {
				return r, true
			}
		}
	}
	return 0, false
}

func withheld(g *runtime.Guest, t *mcp.Tool, o *GuestOptions) bool {
	err := checkHiddenText(t)
	if err == nil {
		return false
	}
	logger := o.Logger
	if o.AllowHiddenText {
		logger.Warn("serving tool with hidden characters (allowed by config)", "guest", g.Name(), "problem", err.Error())
		return false
	}
	logger.Warn("tool withheld: its text hides characters; set allow_hidden_text on the guest to serve it anyway",
		"guest", g.Name(), "problem", err.Error())
	return true
}

// checkHiddenFields returns a *hiddenTextError for the first hidden character in fields
// (name/value pairs) of the prompt, resource or resource template name.
func checkHiddenFields(kind, name string, fields [][2]string) error {
	for _, f := range fields {
		if r, ok := hiddenAt(f[1]); ok {
			return &hiddenTextError{Kind: kind, Tool: name, Field: f[0], Rune: r}
		}
	}
	return nil
}

// promptFields, resourceFields and templateFields list the text a client shows a model.
func promptFields(p abi.Prompt) [][2]string {
	f := [][2]string{{"name", p.Name}, {"title", p.Title}, {"description", p.Description}}
	for i, a := range p.Arguments {
		f = append(f, [2]string{fmt.Sprintf("arguments[%d].name", i), a.Name},
			[2]string{fmt.Sprintf("arguments[%d].title", i), a.Title},
			[2]string{fmt.Sprintf("arguments[%d].description", i), a.Description})
	}
	return f
}

func resourceFields(r abi.Resource) [][2]string {
	return [][2]string{{"uri", r.URI}, {"name", r.Name}, {"title", r.Title}, {"description", r.Description}, {"mimeType", r.MIMEType}}
}

func templateFields(r abi.ResourceTemplate) [][2]string {
	return [][2]string{{"uriTemplate", r.URITemplate}, {"name", r.Name}, {"title", r.Title}, {"description", r.Description}, {"mimeType", r.MIMEType}}
}

// withheldFeature is withheld for a prompt, resource or resource template: err is its
// checkHiddenFields result.
func withheldFeature(g *runtime.Guest, err error, o *GuestOptions) bool {
	if err == nil {
		return false
	}
	if o.AllowHiddenText {
		o.Logger.Warn("serving with hidden characters (allowed by config)", "guest", g.Name(), "problem", err.Error())
		return false
	}
	o.Logger.Warn("withheld: its text hides characters; set allow_hidden_text on the guest to serve it anyway",
		"guest", g.Name(), "problem", err.Error())
	return true
}

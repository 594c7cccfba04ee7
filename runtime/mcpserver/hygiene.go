package mcpserver

import (
	"encoding/json"
	"fmt"
	"github.com/mcpwasm/mcpwasm/abi"
	"unicode/utf8"

	"github.com/mcpwasm/mcpwasm/runtime"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Tool-description hygiene. A model reads a tool's title, description and schemas; the user
// approving the tool usually does not see characters that render as nothing. Zero-width and
// bidirectional-control characters and the Unicode tag block can hide instructions for the
// model in text that looks harmless ("tool poisoning"), so tools carrying them are withheld
// unless the operator allows them.

// isHiddenRune reports whether r is an invisible or format character that hygiene refuses:
// zero-width and directional marks U+200B–U+200F, word joiner and invisible operators
// U+2060–U+2064, the byte order mark / zero-width no-break space U+FEFF, bidirectional
// embeddings and overrides U+202A–U+202E and isolates U+2066–U+2069 (Unicode UAX #9), and
// the tag block U+E0000–U+E007F.
func isHiddenRune(r rune) bool {
	switch {
	case r >= 0x200B && r <= 0x200F,
		r >= 0x2060 && r <= 0x2064,
		r == 0xFEFF,
		r >= 0x202A && r <= 0x202E,
		r >= 0x2066 && r <= 0x2069,
		r >= 0xE0000 && r <= 0xE007F:
		return true
	}
	return false
}

// hiddenTextError says where a tool's text hides a character (see isHiddenRune).
type hiddenTextError struct {
	Tool  string
	Field string // "title", "description", "inputSchema", "outputSchema", "annotations.title"
	Rune  rune
}

func (e *hiddenTextError) Error() string {
	return fmt.Sprintf("tool %q: %s contains hidden character U+%04X", e.Tool, e.Field, e.Rune)
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
		for _, r := range s {
			if isHiddenRune(r) {
				return &hiddenTextError{Tool: t.Name, Field: field, Rune: r}
			}
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
	str := func(s string) (rune, bool) {
		for i := 0; i < len(s); {
			r, n := utf8.DecodeRuneInString(s[i:])
			if isHiddenRune(r) {
				return r, true
			}
			i += n
		}
		return 0, false
	}
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

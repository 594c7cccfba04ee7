package mcpserver_test

import (
	"testing"

	"github.com/mcpwasm/mcpwasm/mcpserver"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestHiddenTextEmojiSequences: the joiners and selectors inside emoji sequences (UTS #51) are
// visible emoji, not hidden text; the same characters outside such a sequence are still caught.
func TestHiddenTextEmojiSequences(t *testing.T) {
	tests := []struct {
		name, desc string
		want       string // the hidden character reported, "" for none
	}{
		// Seen withheld in the field (wave 3 report).
		{"symbol with VS16", "\u26a0\ufe0f Deletes files", ""},
		{"woman technologist", "\U0001F469\u200d\U0001F4BB Developer tools", ""},
		{"rainbow flag", "\U0001F3F3\ufe0f\u200d\U0001F308 Pride", ""},
		{"heart on fire", "\u2764\ufe0f\u200d\U0001F525 Hot", ""},
		{"keycaps", "Step 1\ufe0f\u20e3 then 2\ufe0f\u20e3", ""},
		// Siblings the report did not use.
		{"family of four", "\U0001F468\u200d\U0001F469\u200d\U0001F467\u200d\U0001F466 family", ""},
		{"transgender flag", "\U0001F3F3\ufe0f\u200d\u26a7\ufe0f flag", ""},
		{"hash keycap", "press #\ufe0f\u20e3", ""},
		{"skin tone in ZWJ", "\U0001F9D1\U0001F3FD\u200d\U0001F4BB coder", ""},
		{"eye in speech bubble", "\U0001F441\ufe0f\u200d\U0001F5E8\ufe0f witness", ""},
		{"text presentation of a pictograph", "\u203c\ufe0e note", ""},
		{"country flag", "\U0001F1E9\U0001F1EA Germany", ""},
		{"England flag", "\U0001F3F4\U000E0067\U000E0062\U000E0065\U000E006E\U000E0067\U000E007F England", ""},
		{"emoji at end of text", "done \U0001F469\u200d\U0001F4BB", ""},
		// Smuggles: a joiner or selector not inside an emoji sequence.
		{"ZWJ between letters", "a\u200db", "U+200D"},
		{"ZWJ at start", "\u200d\U0001F469 x", "U+200D"},
		{"ZWJ at end", "x \U0001F469\u200d", "U+200D"},
		{"ZWJ emoji then letter", "\U0001F469\u200da", "U+200D"},
		{"ZWJ letter then emoji", "a\u200d\U0001F469", "U+200D"},
		{"double ZWJ", "\U0001F469\u200d\u200d\U0001F4BB", "U+200D"},
		{"zero width space", "Harmless\u200b\u200bzero-width", "U+200B"},
		{"ZWSP inside ZWJ sequence", "\U0001F469\u200b\U0001F4BB", "U+200B"},
		{"VS16 after digit without keycap", "1\ufe0f", "U+FE0F"},
		{"two VS16 after emoji", "\u26a0\ufe0f\ufe0f", "U+FE0F"},
		{"VS16 after ZWJ sequence twice", "\U0001F469\u200d\U0001F4BB\ufe0f\ufe0f", "U+FE0F"},
		{"keycap selector after a letter", "a\ufe0f\u20e3", "U+FE0F"},
		{"tag text after black flag", "\U0001F3F4\U000E0069\U000E0067\U000E006E\U000E007F", "U+E0069"},
		{"tag text after other emoji", "\U0001F469\U000E0067\U000E0062\U000E0065\U000E006E\U000E0067\U000E007F", "U+E0067"},
		{"unclosed subdivision tag", "\U0001F3F4\U000E0067\U000E0062\U000E0065\U000E006E\U000E0067 x", "U+E0067"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tool := &mcp.Tool{Name: "a", Description: tt.desc, InputSchema: map[string]any{"type": "object"}}
			err := mcpserver.CheckHiddenText(tool)
			want := ""
			if tt.want != "" {
				want = `tool "a": description contains hidden character ` + tt.want
			}
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != want {
				t.Errorf("CheckHiddenText(%+q) = %q, want %q", tt.desc, got, want)
			}
		})
	}
}

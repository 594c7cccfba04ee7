package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"slices"
	"strings"
)

// noteDeniedFS adds to a tool error the reason its guest could not reach a file: when the
// result is a tool error (isError) whose text names a path under an fs directory the guest
// requested but was not granted, the result gets a second text item,
// `fs: /notes is not granted to guest "notes"`, and the host logs it as a warning. The guest
// itself only sees EACCES from the refusing mount there (sandbox.DeniedFS). A result whose
// text already says so (a JavaScript guest's node:fs error names the grant) gets no second
// item (the warning is logged all the same). Any other result is returned as it is.
func (g *Guest) noteDeniedFS(ctx context.Context, t *tool, out []byte) []byte {
	if !bytes.Contains(out, []byte(`"isError"`)) {
		return out
	}
	var res map[string]json.RawMessage
	if json.Unmarshal(out, &res) != nil || string(res["isError"]) != "true" {
		return out
	}
	var content []json.RawMessage
	if json.Unmarshal(res["content"], &content) != nil {
		return out
	}
	var texts []string
	for _, c := range content {
		var item struct{ Text string }
		if json.Unmarshal(c, &item) == nil {
			texts = append(texts, item.Text)
		}
	}
	var notes []string
	for _, d := range t.deniedFS {
		named, said := false, false
		for _, text := range texts {
			named = named || namesPathUnder(text, d.Path)
			said = said || strings.Contains(text, d.Msg)
		}
		if named {
			g.host.logger.LogAttrs(ctx, slog.LevelWarn, d.Msg, slog.String("guest", g.name), slog.String("tool", t.def.Name))
		}
		if named && !said {
			notes = append(notes, d.Msg)
		}
	}
	if notes == nil {
		return out
	}
	for _, n := range notes {
		b, err := json.Marshal(struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}{"text", n})
		if err != nil {
			return out
		}
		content = append(content, b)
	}
	b, err := json.Marshal(content)
	if err != nil {
		return out
	}
	// Splice the new content array in place of the old, leaving the rest byte for byte.
	i := bytes.Index(out, res["content"])
	if i < 0 {
		return out
	}
	return slices.Concat(out[:i], b, out[i+len(res["content"]):])
}

// namesPathUnder reports whether text contains dir or a path below it: dir followed by the
// end, a slash, or a character that cannot continue a path name (a quote, a colon, a space).
func namesPathUnder(text, dir string) bool {
	for i := strings.Index(text, dir); i >= 0; {
		rest := text[i+len(dir):]
		if (i == 0 || !isPathChar(text[i-1])) && (rest == "" || !isPathChar(rest[0]) || dir == "/" || rest[0] == '/') {
			return true
		}
		j := strings.Index(rest, dir)
		if j < 0 {
			return false
		}
		i += len(dir) + j
	}
	return false
}

func isPathChar(c byte) bool {
	return c == '_' || c == '-' || c == '.' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

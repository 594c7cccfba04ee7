package main

import (
	"html"
	"strings"
)

// HTMLToText converts an HTML document to readable plain text with the standard library
// only. It is a tolerant scanner, not a full HTML5 parser:
//   - script, style and template elements, comments, doctypes and processing instructions
//     are dropped;
//   - tags are stripped; block elements (p, div, h1…h6, li, tr, br, …) end lines, and
//     paragraph-like ones (p, h1…h6, ul, ol, table, pre, blockquote, …) leave a blank line;
//     list items start with "- ";
//   - character references are decoded (html.UnescapeString);
//   - whitespace is collapsed: runs of spaces, tabs and newlines become one space, except
//     inside pre, whose text is kept as written; never more than one blank line in a row.
func HTMLToText(doc string) string {
	var w textWriter
	pre := 0          // depth of open pre elements
	preStart := false // just after <pre>: one leading newline is dropped, as HTML does
	for i := 0; i < len(doc); {
		lt := strings.IndexByte(doc[i:], '<')
		if lt < 0 {
			w.text(preText(html.UnescapeString(doc[i:]), &preStart), pre > 0)
			break
		}
		if lt > 0 {
			w.text(preText(html.UnescapeString(doc[i:i+lt]), &preStart), pre > 0)
			i += lt
		}
		// doc[i] == '<'
		rest := doc[i:]
		switch {
		case strings.HasPrefix(rest, "<!--"):
			end := strings.Index(rest[4:], "-->")
			if end < 0 {
				return w.String()
			}
			i += 4 + end + 3
			continue
		case strings.HasPrefix(rest, "<!"), strings.HasPrefix(rest, "<?"):
			end := strings.IndexByte(rest, '>')
			if end < 0 {
				return w.String()
			}
			i += end + 1
			continue
		}
		name, closing, n := scanTag(rest)
		if n == 0 { // not a tag: a literal '<'
			w.text("<", pre > 0)
			i++
			continue
		}
		i += n
		preStart = false
		switch {
		case rawText[name] && !closing:
			// Skip to the matching end tag; the content is never text.
			end := indexFold(doc[i:], "</"+name)
			if end < 0 {
				return w.String()
			}
			i += end
			// The end tag itself is consumed by the next iteration as an ordinary tag.
		case name == "pre":
			if closing {
				if pre > 0 {
					pre--
				}
			} else {
				pre++
			}
			preStart = !closing
			w.block(2)
		case name == "br":
			w.newline()
		case name == "li" && !closing:
			w.block(1)
			w.text("- ", false)
		case name == "td" || name == "th":
			w.text(" ", false)
		case paragraph[name]:
			w.block(2)
		case block[name]:
			w.block(1)
		}
	}
	return w.String()
}

// preText drops the newline that directly follows a pre start tag.
func preText(s string, preStart *bool) string {
	if *preStart && s != "" {
		*preStart = false
		if strings.HasPrefix(s, "\r\n") {
			return s[2:]
		}
		return strings.TrimPrefix(s, "\n")
	}
	return s
}

// rawText elements hold no readable text: their content is skipped up to the end tag.
var rawText = map[string]bool{"script": true, "style": true, "template": true}

// paragraph elements are separated from their surroundings by a blank line.
var paragraph = map[string]bool{
	"p": true, "h1": true, "h2": true, "h3": true, "h4": true, "h5": true, "h6": true,
	"ul": true, "ol": true, "dl": true, "table": true, "blockquote": true, "hr": true,
	"section": true, "article": true, "header": true, "footer": true, "nav": true,
	"aside": true, "main": true, "figure": true, "form": true, "fieldset": true,
	"address": true, "details": true, "body": true,
}

// block elements start and end a line.
var block = map[string]bool{
	"div": true, "li": true, "tr": true, "dt": true, "dd": true, "title": true,
	"figcaption": true, "summary": true, "caption": true, "option": true, "legend": true,
	"thead": true, "tbody": true, "tfoot": true, "head": true, "html": true,
}

// scanTag reads the tag at the start of s (s[0] == '<'). It returns the lower-cased element
// name, whether it is an end tag, and the tag's length including the closing '>'; n == 0
// means s does not start a tag. Quoted attribute values may contain '>'.
func scanTag(s string) (name string, closing bool, n int) {
	i := 1
	if i < len(s) && s[i] == '/' {
		closing = true
		i++
	}
	start := i
	for i < len(s) && isNameByte(s[i], i == start) {
		i++
	}
	if i == start {
		return "", false, 0
	}
	name = strings.ToLower(s[start:i])
	var quote byte
	for ; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '>':
			return name, closing, i + 1
		}
	}
	return name, closing, len(s) // unterminated tag: runs to the end of the document
}

func isNameByte(c byte, first bool) bool {
	if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' {
		return true
	}
	return !first && ('0' <= c && c <= '9' || c == '-' || c == ':' || c == '_')
}

// indexFold is strings.Index with ASCII case folding of s (sub must be lower case).
func indexFold(s, sub string) int {
	for i := 0; i+len(sub) <= len(s); i++ {
		if strings.EqualFold(s[i:i+len(sub)], sub) {
			return i
		}
	}
	return -1
}

// textWriter accumulates collapsed text. Line breaks requested by block elements are held
// back until the next word, so leading, trailing and repeated breaks never reach the output.
type textWriter struct {
	b         strings.Builder
	breaks    int  // pending line breaks (capped at 2: one blank line)
	space     bool // pending space between words
	lineStart bool // nothing written on the current line yet
}

func (w *textWriter) block(n int) {
	if n > w.breaks {
		w.breaks = n
	}
	w.space = false
}

func (w *textWriter) newline() {
	if w.breaks < 2 {
		w.breaks++
	}
	w.space = false
}

// flush writes the pending separator before a word.
func (w *textWriter) flush() {
	if w.b.Len() == 0 {
		w.breaks, w.space, w.lineStart = 0, false, true
		return
	}
	if w.breaks > 0 {
		// Text kept from pre may already end with line breaks; count them towards the
		// pending ones.
		s, have := w.b.String(), 0
		for have < w.breaks && have < len(s) && s[len(s)-1-have] == '\n' {
			have++
		}
		w.b.WriteString("\n\n"[:w.breaks-have])
		w.breaks, w.space, w.lineStart = 0, false, true
		return
	}
	if w.space && !w.lineStart {
		w.b.WriteByte(' ')
	}
	w.space = false
}

func (w *textWriter) text(s string, pre bool) {
	if pre {
		if s == "" {
			return
		}
		w.flush()
		w.b.WriteString(s)
		w.lineStart = strings.HasSuffix(s, "\n")
		return
	}
	for s != "" {
		j := strings.IndexFunc(s, isSpace)
		if j != 0 {
			word := s
			if j > 0 {
				word = s[:j]
			}
			w.flush()
			w.b.WriteString(word)
			w.lineStart = false
			if j < 0 {
				return
			}
			s = s[j:]
		}
		s = strings.TrimLeftFunc(s, isSpace)
		w.space = true
	}
}

// isSpace reports HTML whitespace plus U+00A0 (&nbsp;), which reads as a space in text.
func isSpace(r rune) bool {
	switch r {
	case ' ', '\t', '\n', '\r', '\f', '\u00a0':
		return true
	}
	return false
}

func (w *textWriter) String() string { return strings.TrimRight(w.b.String(), " \t\r\n") }

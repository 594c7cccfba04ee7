package mcpserver

import "testing"

// normalizeURI spells a URI as WHATWG URL (Node) does for what go-sdk's routing compares:
// non-ASCII and spaces percent-encoded, the scheme and a web URL's host in lower case, the
// rest (an opaque host, the path, existing escapes) untouched.
func TestNormalizeURI(t *testing.T) {
	for in, want := range map[string]string{
		"note://42":                           "note://42",
		"note://café":                         "note://caf%C3%A9",
		"NOTE://Ab/C":                         "note://Ab/C",
		"HTTPS://User@EXAMPLE.com:8443/A?B#C": "https://User@example.com:8443/A?B#C",
		"file:///a b/ü":                       "file:///a%20b/%C3%BC",
		"tag:ü x":                             "tag:%C3%BC%20x",
		"search://q?q=%E2%82%AC":              "search://q?q=%E2%82%AC",
		"no scheme ü":                         "no%20scheme%20%C3%BC",
		`x://h/<"{|}>^` + "`":                 "x://h/%3C%22%7B%7C%7D%3E%5E%60",
	} {
		if got := normalizeURI(in); got != want {
			t.Errorf("normalizeURI(%q) = %q, want %q", in, got, want)
		}
	}
}

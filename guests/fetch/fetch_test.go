package main

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/abi/guest"
)

var ctx = context.Background()

func TestHTMLToText(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"empty", "", ""},
		{"plain", "just text", "just text"},
		{"collapse", "  a \t b\n\n c  ", "a b c"},
		{"inline", "<p>Hello, <b>bold</b> <i>world</i>!</p>", "Hello, bold world!"},
		{"no space between inline", "foo<b>bar</b>baz", "foobarbaz"},
		{"paragraphs", "<p>one</p><p>two</p>", "one\n\ntwo"},
		{"divs", "<div>one</div><div>two</div>", "one\ntwo"},
		{"br", "a<br>b<br/>c", "a\nb\nc"},
		{"double br", "a<br><br>b", "a\n\nb"},
		{"triple br keeps one blank line", "a<br><br><br>b", "a\n\nb"},
		{"headings", "<h1>Title</h1>text<h2>Sub</h2>more", "Title\n\ntext\n\nSub\n\nmore"},
		{"list", "<ul><li>a</li><li>b <em>c</em></li></ul>after", "- a\n- b c\n\nafter"},
		{"table", "<table><tr><th>k</th><th>v</th></tr><tr><td>1</td><td>2</td></tr></table>", "k v\n1 2"},
		{"script and style dropped",
			`<head><title>T</title><style>p{color:red}</style><script>if (a < b && c > d) { x("</p>") }</script></head><body><p>body</p></body>`,
			"T\n\nbody"},
		{"script case-insensitive", "a<SCRIPT type=x>var s = '<b>';</ScRiPt>b", "ab"},
		{"template dropped", "a<template><p>hidden</p></template> b", "a b"},
		{"comment dropped", "a<!-- <p>no</p> -->b", "ab"},
		{"doctype dropped", "<!DOCTYPE html><html><body>x</body></html>", "x"},
		{"processing instruction dropped", `<?xml version="1.0"?><p>x</p>`, "x"},
		{"entities", "<p>&lt;tag&gt; &amp; &quot;q&quot; &#39;s&#39; caf&eacute; &#x263A;</p>", `<tag> & "q" 's' café ☺`},
		{"nbsp collapses", "a&nbsp;&nbsp;b", "a b"},
		{"quoted > in attribute", `<a href="x>y" title='>'>link</a> text`, "link text"},
		{"literal less-than", "1 < 2 and 3 <4", "1 < 2 and 3 <4"},
		{"pre keeps whitespace", "<p>intro</p><pre>\nfunc f() {\n\treturn  1\n}\n</pre><p>outro</p>", "intro\n\nfunc f() {\n\treturn  1\n}\n\noutro"},
		{"pre entities", "<pre>a &lt; b</pre>", "a < b"},
		{"unterminated comment", "a<!-- never closed", "a"},
		{"unterminated script", "a<script>never closed", "a"},
		{"unterminated tag", "a<p class=x", "a"},
		{"upper-case tags", "<P>one</P><DIV>two</DIV>", "one\n\ntwo"},
	}
	for _, tt := range tests {
		if got := HTMLToText(tt.in); got != tt.want {
			t.Errorf("%s: HTMLToText(%q) =\n%q\nwant\n%q", tt.name, tt.in, got, tt.want)
		}
	}
}

func TestTruncate(t *testing.T) {
	tests := []struct {
		in    string
		limit int
		want  string
	}{
		{"hello", 5, "hello"},
		{"hello", 10, "hello"},
		{"hello", 3, "hel\n\n[truncated: showing 3 of 5 bytes; raise max_bytes for more]"},
		// "é" is two bytes: cutting inside it backs off to the rune boundary.
		{"aé", 2, "a\n\n[truncated: showing 1 of 3 bytes; raise max_bytes for more]"},
		{"☺☺", 4, "☺\n\n[truncated: showing 3 of 6 bytes; raise max_bytes for more]"},
		{"a  \n\nb", 4, "a\n\n[truncated: showing 4 of 6 bytes; raise max_bytes for more]"},
	}
	for _, tt := range tests {
		if got := Truncate(tt.in, tt.limit); got != tt.want {
			t.Errorf("Truncate(%q, %d) = %q, want %q", tt.in, tt.limit, got, tt.want)
		}
	}
}

// fakeHTTP replaces httpDo for one test and records the requests it sees.
func fakeHTTP(t *testing.T, resp *abi.HTTPResponse, err error) *[]abi.HTTPRequest {
	t.Helper()
	var seen []abi.HTTPRequest
	old := httpDo
	httpDo = func(req abi.HTTPRequest) (*abi.HTTPResponse, error) {
		seen = append(seen, req)
		return resp, err
	}
	t.Cleanup(func() { httpDo = old })
	return &seen
}

func TestFetch(t *testing.T) {
	html := &abi.HTTPResponse{Status: 200, URL: "https://example.com/",
		Headers: map[string][]string{"Content-Type": {"text/html; charset=utf-8"}},
		Body:    "<html><head><title>Ex</title><script>x()</script></head><body><h1>Hi</h1><p>there  you</p></body></html>"}
	seen := fakeHTTP(t, html, nil)
	got, err := Fetch(ctx, FetchIn{URL: "https://example.com/"})
	if err != nil || got != "Ex\n\nHi\n\nthere you" {
		t.Errorf("Fetch(html) = %q, %v", got, err)
	}
	want := []abi.HTTPRequest{{Method: "GET", URL: "https://example.com/",
		Headers: map[string][]string{"Accept": {"text/html, text/plain;q=0.9, */*;q=0.5"}}}}
	if diff := cmp.Diff(want, *seen); diff != "" {
		t.Errorf("requests (-want +got):\n%s", diff)
	}

	got, err = Fetch(ctx, FetchIn{URL: "https://example.com/", MaxBytes: 4})
	if want := "Ex\n\n[truncated: showing 4 of 17 bytes; raise max_bytes for more]"; err != nil || got != want {
		t.Errorf("Fetch(html, max_bytes 4) = %q, %v; want %q", got, err, want)
	}

	// Other text is returned as is, whatever the header name's case.
	fakeHTTP(t, &abi.HTTPResponse{Status: 203, Headers: map[string][]string{"content-type": {"TEXT/PLAIN"}}, Body: "<p>  raw  </p>"}, nil)
	if got, err := Fetch(ctx, FetchIn{URL: "http://example.com/x.txt"}); err != nil || got != "<p>  raw  </p>" {
		t.Errorf("Fetch(text) = %q, %v", got, err)
	}
	// XHTML is converted too.
	fakeHTTP(t, &abi.HTTPResponse{Status: 200, Headers: map[string][]string{"Content-Type": {"application/xhtml+xml"}}, Body: "<p>a</p><p>b</p>"}, nil)
	if got, err := Fetch(ctx, FetchIn{URL: "http://example.com/"}); err != nil || got != "a\n\nb" {
		t.Errorf("Fetch(xhtml) = %q, %v", got, err)
	}
}

func TestFetchErrors(t *testing.T) {
	denied := &guest.RequestError{Kind: "http", Status: abi.StatusDenied, Message: `net: host "x.example" is not granted to guest "fetch"`}
	tests := []struct {
		name    string
		in      FetchIn
		resp    *abi.HTTPResponse
		err     error
		wantErr string
		noCall  bool
	}{
		{name: "404", in: FetchIn{URL: "https://x.example/missing"}, resp: &abi.HTTPResponse{Status: 404, Body: "nope"},
			wantErr: "GET https://x.example/missing: HTTP 404"},
		{name: "500", in: FetchIn{URL: "https://x.example/"}, resp: &abi.HTTPResponse{Status: 500},
			wantErr: "GET https://x.example/: HTTP 500"},
		{name: "304", in: FetchIn{URL: "https://x.example/"}, resp: &abi.HTTPResponse{Status: 304},
			wantErr: "GET https://x.example/: HTTP 304"},
		{name: "denied", in: FetchIn{URL: "https://x.example/"}, err: denied,
			wantErr: `GET https://x.example/: net: host "x.example" is not granted to guest "fetch"`},
		{name: "binary", in: FetchIn{URL: "https://x.example/a.png"},
			resp:    &abi.HTTPResponse{Status: 200, Headers: map[string][]string{"Content-Type": {"image/png"}}, BodyBase64: "iVBORw=="},
			wantErr: "GET https://x.example/a.png: the body is binary (image/png), not text"},
		{name: "binary no type", in: FetchIn{URL: "https://x.example/b"}, resp: &abi.HTTPResponse{Status: 200, BodyBase64: "AA=="},
			wantErr: "GET https://x.example/b: the body is binary (unknown type), not text"},
		{name: "scheme", in: FetchIn{URL: "file:///etc/passwd"}, noCall: true,
			wantErr: `invalid url "file:///etc/passwd": the scheme must be http or https`},
		{name: "relative", in: FetchIn{URL: "/just/a/path"}, noCall: true,
			wantErr: `invalid url "/just/a/path": the scheme must be http or https`},
		{name: "no host", in: FetchIn{URL: "https:///x"}, noCall: true, wantErr: `invalid url "https:///x": no host`},
		{name: "unparsable", in: FetchIn{URL: "http://[::1"}, noCall: true,
			wantErr: `invalid url: parse "http://[::1": missing ']' in host`},
		{name: "max_bytes negative", in: FetchIn{URL: "https://x.example/", MaxBytes: -1}, noCall: true,
			wantErr: "max_bytes must be between 1 and 1000000, got -1"},
		{name: "max_bytes too big", in: FetchIn{URL: "https://x.example/", MaxBytes: 1_000_001}, noCall: true,
			wantErr: "max_bytes must be between 1 and 1000000, got 1000001"},
	}
	for _, tt := range tests {
		seen := fakeHTTP(t, tt.resp, tt.err)
		got, err := Fetch(ctx, tt.in)
		if err == nil || err.Error() != tt.wantErr {
			t.Errorf("%s: Fetch = %q, %v; want error %q", tt.name, got, err, tt.wantErr)
		}
		if tt.noCall && len(*seen) != 0 {
			t.Errorf("%s: made a request, want none", tt.name)
		}
	}
}

// Without a host (a native build), the SDK's request reports UNAVAILABLE; fetch passes the
// reason through.
func TestFetchNoHost(t *testing.T) {
	_, err := Fetch(ctx, FetchIn{URL: "https://example.com/"})
	if err == nil || !strings.HasPrefix(err.Error(), "GET https://example.com/: ") {
		t.Errorf("Fetch without host: %v", err)
	}
}

func TestSchema(t *testing.T) {
	var got map[string]any
	if err := json.Unmarshal(fetchSchema(), &got); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"type":                 "object",
		"required":             []any{"url"},
		"additionalProperties": false,
		"properties": map[string]any{
			"url": map[string]any{"type": "string", "description": "absolute http or https URL to GET"},
			"max_bytes": map[string]any{"type": "integer", "minimum": 1.0, "maximum": 1e6, "default": 100000.0,
				"description": "cap on the returned text in bytes (default 100000, at most 1000000); longer text is cut and marked"},
		},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("schema (-want +got):\n%s", diff)
	}
}

// inferredFetchSchema is FetchIn's inferred schema plus the bounds and default of max_bytes, which
// struct tags cannot express.
func inferredFetchSchema() json.RawMessage {
	s, err := jsonschema.For[FetchIn](nil)
	if err != nil {
		panic(err)
	}
	mb := s.Properties["max_bytes"]
	mb.Minimum, mb.Maximum = ptr(1.0), ptr(float64(MaxMaxBytes))
	mb.Default = json.RawMessage(strconv.Itoa(DefaultMaxBytes))
	b, err := json.Marshal(s)
	if err != nil {
		panic(err)
	}
	return b
}

func ptr[T any](v T) *T { return &v }

// TestSchemaCurrent: the constant schema is what jsonschema-go infers from FetchIn, plus the
// bounds, byte for byte (the manifest the guest served when it inferred at run time).
func TestSchemaCurrent(t *testing.T) {
	if got, want := string(fetchSchema()), string(inferredFetchSchema()); got != want {
		t.Errorf("fetchInputSchema is stale; set it to\n%s", want)
	}
}

package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/abi/guest"
)

// Limits of the fetch tool's max_bytes.
const (
	DefaultMaxBytes = 100_000
	MaxMaxBytes     = 1_000_000
)

type FetchIn struct {
	URL      string `json:"url" jsonschema:"absolute http or https URL to GET"`
	MaxBytes int    `json:"max_bytes,omitempty" jsonschema:"cap on the returned text in bytes (default 100000, at most 1000000); longer text is cut and marked"`
}

// httpDo performs the request; tests replace it.
var httpDo = guest.HTTP

// Fetch GETs in.URL through the host's net capability and returns the body as text: HTML
// (text/html, application/xhtml+xml) is converted with HTMLToText, other text is returned
// as is, binary bodies are a tool error. The text is cut to max_bytes (on a rune boundary)
// with a trailing note saying so.
func Fetch(_ context.Context, in FetchIn) (string, error) {
	limit := in.MaxBytes
	switch {
	case limit == 0:
		limit = DefaultMaxBytes
	case limit < 0 || limit > MaxMaxBytes:
		return "", fmt.Errorf("max_bytes must be between 1 and %d, got %d", MaxMaxBytes, limit)
	}
	if err := checkURL(in.URL); err != nil {
		return "", err
	}
	resp, err := httpDo(abi.HTTPRequest{
		Method:  "GET",
		URL:     in.URL,
		Headers: map[string][]string{"Accept": {"text/html, text/plain;q=0.9, */*;q=0.5"}},
	})
	if err != nil {
		var re *guest.RequestError
		if errors.As(err, &re) {
			// The host's one-line reason, verbatim: it names the refused host or limit.
			return "", fmt.Errorf("GET %s: %s", in.URL, re.Message)
		}
		return "", fmt.Errorf("GET %s: %v", in.URL, err)
	}
	if resp.Status < 200 || resp.Status > 299 {
		return "", fmt.Errorf("GET %s: HTTP %d", in.URL, resp.Status)
	}
	ctype := mediaType(resp.Headers)
	if resp.BodyBase64 != "" {
		if ctype == "" {
			ctype = "unknown type"
		}
		return "", fmt.Errorf("GET %s: the body is binary (%s), not text", in.URL, ctype)
	}
	text := resp.Body
	if ctype == "text/html" || ctype == "application/xhtml+xml" {
		text = HTMLToText(text)
	}
	return Truncate(text, limit), nil
}

// checkURL accepts absolute http and https URLs with a host. The host checks again (and
// decides whether the host is granted); checking here gives a clearer message.
func checkURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return fmt.Errorf("invalid url: %v", err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return fmt.Errorf("invalid url %q: the scheme must be http or https", raw)
	}
	if u.Host == "" {
		return fmt.Errorf("invalid url %q: no host", raw)
	}
	return nil
}

// mediaType returns the lower-cased media type of the Content-Type header (parameters
// dropped), looking the header name up case-insensitively.
func mediaType(h map[string][]string) string {
	for k, v := range h {
		if strings.EqualFold(k, "Content-Type") && len(v) > 0 {
			t, _, _ := strings.Cut(v[0], ";")
			return strings.ToLower(strings.TrimSpace(t))
		}
	}
	return ""
}

// Truncate returns s if it is at most limit bytes long, else its longest prefix of at most
// limit bytes that ends on a rune boundary, trailing whitespace trimmed, followed by a note
// giving the kept and total sizes.
func Truncate(s string, limit int) string {
	if len(s) <= limit {
		return s
	}
	cut := limit
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return strings.TrimRight(s[:cut], " \t\r\n") + "\n\n[truncated: showing " + strconv.Itoa(cut) + " of " + strconv.Itoa(len(s)) + " bytes; raise max_bytes for more]"
}

// fetchSchema is FetchIn's inferred schema plus the bounds and default of max_bytes, which
// struct tags cannot express. It is a constant so the guest need not link jsonschema-go;
// TestSchemaCurrent checks it against the inference (inferredFetchSchema in fetch_test.go).
func fetchSchema() json.RawMessage { return json.RawMessage(fetchInputSchema) }

const fetchInputSchema = `{"type":"object","properties":{"url":{"type":"string","description":"absolute http or https URL to GET"},"max_bytes":{"type":"integer","description":"cap on the returned text in bytes (default 100000, at most 1000000); longer text is cut and marked","default":100000,"minimum":1,"maximum":1000000}},"required":["url"],"additionalProperties":false}`

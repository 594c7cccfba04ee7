package main

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Limits of regex_match.
const (
	MaxPatternLen = 1024
	MaxTextLen    = 1 << 20
	// MaxMatches caps the matches regex_match returns with all=true; the result says
	// truncated when more exist.
	MaxMatches = 1000
)

// ---- sha256 ----

type SHA256In struct {
	Text string `json:"text" jsonschema:"the text to hash (its UTF-8 bytes)"`
}

type SHA256Out struct {
	Hex string `json:"hex" jsonschema:"SHA-256 digest as 64 lowercase hex digits"`
}

func SHA256(_ context.Context, in SHA256In) (SHA256Out, error) {
	sum := sha256.Sum256([]byte(in.Text))
	return SHA256Out{Hex: hex.EncodeToString(sum[:])}, nil
}

// ---- base64 ----

type Base64EncodeIn struct {
	Text string `json:"text" jsonschema:"the text to encode (its UTF-8 bytes)"`
	URL  bool   `json:"url,omitempty" jsonschema:"use the URL-safe alphabet (- and _ instead of + and /); padding is kept"`
}

type Base64EncodeOut struct {
	Base64 string `json:"base64" jsonschema:"the padded base64 encoding"`
}

func Base64Encode(_ context.Context, in Base64EncodeIn) (Base64EncodeOut, error) {
	enc := base64.StdEncoding
	if in.URL {
		enc = base64.URLEncoding
	}
	return Base64EncodeOut{Base64: enc.EncodeToString([]byte(in.Text))}, nil
}

type Base64DecodeIn struct {
	Base64 string `json:"base64" jsonschema:"base64 to decode, with or without = padding"`
	URL    bool   `json:"url,omitempty" jsonschema:"the input uses the URL-safe alphabet (- and _)"`
}

type Base64DecodeOut struct {
	Text string `json:"text" jsonschema:"the decoded bytes, which must be valid UTF-8"`
}

func Base64Decode(_ context.Context, in Base64DecodeIn) (Base64DecodeOut, error) {
	enc := base64.StdEncoding
	if in.URL {
		enc = base64.URLEncoding
	}
	s := in.Base64
	if !strings.HasSuffix(s, "=") {
		enc = enc.WithPadding(base64.NoPadding)
	}
	b, err := enc.DecodeString(s)
	if err != nil {
		// DecodeString returns this error type itself, never wrapped: a type assertion is
		// errors.As here, without linking internal/reflectlite's code.
		if ce, ok := err.(base64.CorruptInputError); ok {
			return Base64DecodeOut{}, errors.New("invalid base64 at byte " + strconv.FormatInt(int64(ce), 10))
		}
		return Base64DecodeOut{}, errors.New("invalid base64: " + err.Error())
	}
	if !utf8.Valid(b) {
		return Base64DecodeOut{}, errors.New("decoded bytes are not valid UTF-8")
	}
	return Base64DecodeOut{Text: string(b)}, nil
}

// ---- regex_match ----

type RegexIn struct {
	Pattern string `json:"pattern" jsonschema:"Go RE2 regular expression (linear time; no backreferences or lookaround), at most 1024 bytes"`
	Text    string `json:"text" jsonschema:"the text to search, at most 1 MiB"`
	All     bool   `json:"all,omitempty" jsonschema:"return every non-overlapping match (up to 1000) instead of only the first"`
}

type Match struct {
	Match  string    `json:"match" jsonschema:"the matched text"`
	Index  int       `json:"index" jsonschema:"byte offset of the match in text"`
	Groups []*string `json:"groups" jsonschema:"capture groups 1..n in order; null for a group that did not participate"`
}

type RegexOut struct {
	Matched   bool    `json:"matched" jsonschema:"whether the pattern matched anywhere in text"`
	Matches   []Match `json:"matches" jsonschema:"the first match, or all matches when all is true"`
	Truncated bool    `json:"truncated" jsonschema:"true when all is true and more than 1000 matches exist"`
}

func RegexMatch(_ context.Context, in RegexIn) (RegexOut, error) {
	if len(in.Pattern) > MaxPatternLen {
		return RegexOut{}, errors.New("pattern longer than " + strconv.Itoa(MaxPatternLen) + " bytes")
	}
	if len(in.Text) > MaxTextLen {
		return RegexOut{}, errors.New("text longer than " + strconv.Itoa(MaxTextLen) + " bytes")
	}
	re, err := regexp.Compile(in.Pattern)
	if err != nil {
		return RegexOut{}, errors.New("invalid pattern " + strconv.Quote(in.Pattern) + ": " + strings.TrimPrefix(err.Error(), "error parsing regexp: "))
	}
	n := 1
	if in.All {
		n = MaxMatches + 1
	}
	locs := re.FindAllStringSubmatchIndex(in.Text, n)
	out := RegexOut{Matched: len(locs) > 0, Matches: []Match{}}
	if len(locs) > MaxMatches {
		locs, out.Truncated = locs[:MaxMatches], true
	}
	for _, loc := range locs {
		m := Match{Match: in.Text[loc[0]:loc[1]], Index: loc[0], Groups: []*string{}}
		for g := 2; g < len(loc); g += 2 {
			if loc[g] < 0 {
				m.Groups = append(m.Groups, nil)
				continue
			}
			s := in.Text[loc[g]:loc[g+1]]
			m.Groups = append(m.Groups, &s)
		}
		out.Matches = append(out.Matches, m)
	}
	return out, nil
}

// ---- count ----

type CountIn struct {
	Text string `json:"text" jsonschema:"the text to measure"`
}

type CountOut struct {
	Bytes int `json:"bytes" jsonschema:"length in UTF-8 bytes"`
	Runes int `json:"runes" jsonschema:"number of Unicode code points (each invalid byte counts as one)"`
	Words int `json:"words" jsonschema:"number of whitespace-separated words"`
	Lines int `json:"lines" jsonschema:"number of lines: newlines, plus one if the text does not end with a newline; 0 for empty text"`
}

func Count(_ context.Context, in CountIn) (CountOut, error) {
	s := in.Text
	lines := strings.Count(s, "\n")
	if s != "" && !strings.HasSuffix(s, "\n") {
		lines++
	}
	return CountOut{
		Bytes: len(s),
		Runes: utf8.RuneCountInString(s),
		Words: len(strings.Fields(s)),
		Lines: lines,
	}, nil
}

// ---- echo ----

type EchoIn struct {
	Text string `json:"text" jsonschema:"the text to return unchanged"`
}

func Echo(_ context.Context, in EchoIn) (string, error) { return in.Text, nil }

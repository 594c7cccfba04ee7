package schema

import (
	"reflect"
	"regexp"
	"testing"
)

// TestECMAToGoSyntax pins the rewrite that checks the rest of an ECMA-only pattern.
func TestECMAToGoSyntax(t *testing.T) {
	for _, tc := range []struct {
		in, out string
		lacks   []string
	}{
		{`^(?=.*\d)(?!x).{8,}$`, `^(?:.*\d)(?:x).{1}$`, []string{"lookahead"}},
		{`(?<=a)(?<!b)`, `(?:a)(?:b)`, []string{"lookbehind"}},
		{`(?<q>['"]).*\k<q>|(a)\12`, `(?<q>['"]).*(?:)|(a)(?:)`, []string{"back-references"}},
		{`[\1\b]\(?=`, `[\1\x08]\(?=`, []string{`\b (backspace) in a class`}},
		{`\u00e9\u{1F600}\cJ`, `\x{00e9}\x{1F600}\x{0A}`, []string{`\u escapes`, `\c escapes`}},
		{`[](?=[^])[]a]`, `[^\x00-\x{10FFFF}](?:[\x00-\x{10FFFF}])[^\x00-\x{10FFFF}]a]`, []string{"empty classes", "lookahead", "[^]"}},
		{`[(?=]`, `[(?=]`, nil},
		{`a{2}b{3,}c{1,2000}d{5,2}e{x}[{9}]`, `a{1}b{1}c{1}d{5,2}e{x}[{9}]`, []string{"repeat counts over 1000"}},
		// z.emoji()'s and \p{Script=…}: properties Go does not know; \p{L} and \p{Greek} it does.
		{`^[\p{Extended_Pictographic}\p{L}]+\P{sc=Greek}\p{Greek}$`, `^[\pL\p{L}]+\PL\p{Greek}$`, []string{"Unicode property Extended_Pictographic", "Unicode property sc=Greek"}},
	} {
		out, lacks := ecmaToGoSyntax(tc.in)
		if out != tc.out || !reflect.DeepEqual(lacks, tc.lacks) {
			t.Errorf("ecmaToGoSyntax(%q) = %q, %q; want %q, %q", tc.in, out, lacks, tc.out, tc.lacks)
		}
	}
}

// FuzzHostRegexp: hostRegexp never panics, and it leaves a pattern to the guest exactly when
// Go's regexp cannot compile it.
func FuzzHostRegexp(f *testing.F) {
	for _, p := range []string{`^\p{Extended_Pictographic}+$`, `\p{`, `\P{sc=Greek}`, `^(?=.*\d).{8,}$`, `(a)\1`, `\k<n>`, `\u{1F600}\u00e9\cJ`, `[]`, `[^]`, `[\b]`, `a{1,2000}`, `(`, `\`, `[`, `{`, `\u{`, `\k<`} {
		f.Add(p)
	}
	f.Fuzz(func(t *testing.T, p string) {
		why, err := hostRegexp(p)
		_, goErr := regexp.Compile(p)
		if (goErr == nil) != (why == "" && err == nil) {
			t.Errorf("hostRegexp(%q) = %q, %v; Go's regexp: %v", p, why, err, goErr)
		}
	})
}

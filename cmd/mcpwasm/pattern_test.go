package main

import (
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A TypeScript SDK tool whose zod schema has a regex Go's regexp cannot compile (a
// lookahead) is served: the guest loaded (it was refused whole: "invalid or unsupported Perl
// syntax: '(?='"), tools/list advertises the pattern as the guest wrote it, the host warns
// once that it leaves the pattern to the guest, a wrong password is refused by the guest's
// zod with an invalid-arguments answer naming the field, the rest of the schema (note's
// maxLength) is still enforced by the host, and a right password is answered.
func TestPatternLeftToJavaScriptGuest(t *testing.T) {
	s := serveScript(t, filepath.Join("testdata", "pattern-server.js"))
	s.send(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	if l, want := s.recvReply(), `"pw":{"type":"string","pattern":"^(?=.*\\d)(?=.*[a-z]).{8,}$"}`; !strings.Contains(l, want) {
		t.Errorf("tools/list: %s\nwant the schema to hold %s", l, want)
	}
	s.send(callLine(3, "pw", `{"pw":"short"}`))
	if isErr, text := toolResult(t, s.recvReply()); !isErr || text != `invalid arguments: Input validation error: Invalid arguments for tool pw: pw: Invalid string: must match pattern /^(?=.*\d)(?=.*[a-z]).{8,}$/` {
		t.Errorf("wrong pw: isError %v, %q", isErr, text)
	}
	s.send(callLine(4, "pw", `{"pw":"abcdefg1","note":"toolong"}`))
	if isErr, text := toolResult(t, s.recvReply()); !isErr || text != `invalid arguments: validating /properties/note: maxLength: "toolong" contains 7 Unicode code points, more than 3` {
		t.Errorf("long note: isError %v, %q", isErr, text)
	}
	s.send(callLine(5, "pw", `{"pw":"abcdefg1"}`))
	if isErr, text := toolResult(t, s.recvReply()); isErr || text != "ok 8" {
		t.Errorf("right pw: isError %v, %q", isErr, text)
	}
	// A regex with the i flag is not in the schema (a pattern has no flags: its source alone
	// refused "ABCdef"); zod checks it. z.emoji()'s Unicode properties, which Go's regexp does
	// not know, no longer refuse the guest.
	s.send(`{"jsonrpc":"2.0","id":6,"method":"tools/list"}`)
	if l, want := s.recvReply(), `"v":{"type":"string","allOf":[{"pattern":"^..+$"}]}`; !strings.Contains(l, want) {
		t.Errorf("tools/list: %s\nwant hex's v to hold only the unflagged pattern: %s", l, want)
	}
	for i, c := range []struct{ args, text string }{
		{`{"v":"ABCdef","e":"😀"}`, "hex ABCdef 😀"},
		{`{"v":"xyz"}`, `invalid arguments: Input validation error: Invalid arguments for tool hex: v: Invalid string: must match pattern /^[0-9a-f]+$/i`},
		{`{"v":"ab","e":"x"}`, `invalid arguments: Input validation error: Invalid arguments for tool hex: e: Invalid emoji`},
	} {
		s.send(callLine(7+i, "hex", c.args))
		if isErr, text := toolResult(t, s.recvReply()); text != c.text || isErr != strings.HasPrefix(c.text, "invalid") {
			t.Errorf("hex %s: isError %v, %q; want %q", c.args, isErr, text, c.text)
		}
	}
	if code, _ := s.closeAndWait(time.Minute); code != 0 {
		t.Errorf("exit %d", code)
	}
	emoji := `level=WARN msg="schema keyword not enforced by the host: Go's regexp has no lookahead, no Unicode property Extended_Pictographic, no Unicode property Regional_Indicator, no \\u escapes, no Unicode property Emoji_Component; only the guest can check it" guest=imp tool=hex path=inputSchema/properties/e/pattern`
	if got := s.stderr.String(); !strings.Contains(got, emoji) {
		t.Errorf("stderr:\n%s\nwant the warning: %s", got, emoji)
	}
	want := `level=WARN msg="schema keyword not enforced by the host: Go's regexp has no lookahead; only the guest can check it" guest=imp tool=pw path=inputSchema/properties/pw/pattern pattern="^(?=.*\\d)(?=.*[a-z]).{8,}$"`
	if got := s.stderr.String(); strings.Count(got, "not enforced by the host") != 2 || !strings.Contains(got, want) {
		t.Errorf("stderr:\n%s\nwant two warnings, one of them: %s", got, want)
	}
}

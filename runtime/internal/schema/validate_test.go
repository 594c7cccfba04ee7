package schema

import (
	"encoding/json"
	"testing"
)

// TestValidateExactNumbers: integers above 2^53 and numbers beyond float64 are valid JSON
// numbers, judged by their value (reproducer N07, input direction).
func TestValidateExactNumbers(t *testing.T) {
	r, err := Resolve(json.RawMessage(`{"type":"object","properties":{"i":{"type":"integer","maximum":9007199254740992},"n":{"type":"number","minimum":0}}}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args string
		ok   bool
	}{
		{`{"i":9007199254740992}`, true},
		{`{"i":9007199254740993}`, false}, // above maximum: compared exactly, not as 2^53
		{`{"i":-9007199254740993}`, true},
		{`{"i":-12345678901234567890123}`, true},
		{`{"i":1e3}`, true},
		{`{"i":1.0000000000000000001}`, false}, // not an integer, though float64 says 1
		{`{"i":1.5}`, false},
		{`{"n":1e400}`, true},
		{`{"n":-1e400}`, false}, // below minimum
		{`{"n":1e-400}`, true},
		{`{"n":1e999999999999}`, true},
	} {
		err := Validate(r, []byte(tc.args))
		if (err == nil) != tc.ok {
			t.Errorf("Validate(%s) = %v, want ok=%v", tc.args, err, tc.ok)
		}
	}
}

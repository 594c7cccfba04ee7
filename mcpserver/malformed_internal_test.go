package mcpserver

import (
	"errors"
	"fmt"
	"testing"

	"github.com/mcpwasm/mcpwasm/runtime"
)

// A malformed result is an ABI violation for a guest built against the ABI, and the script's
// error for a JavaScript guest (its handler returned it); the message is the same.
func TestMalformedResultLabelByKind(t *testing.T) {
	cause := fmt.Errorf(`content[0]: unknown type "txt"`)
	for _, c := range []struct {
		kind, want string
		abi        bool
	}{
		{"javascript", `guest "imp" tool "b": script error: malformed result: content[0]: unknown type "txt"`, false},
		{"mcpwasm", `guest "imp" tool "b": ABI violation: malformed result: content[0]: unknown type "txt"`, true},
	} {
		err := malformedResult("imp", c.kind, "b", cause)
		if err.Error() != c.want || errors.Is(err, runtime.ErrABI) != c.abi {
			t.Errorf("%s: %v (ABI %v), want %q (ABI %v)", c.kind, err, errors.Is(err, runtime.ErrABI), c.want, c.abi)
		}
	}
}

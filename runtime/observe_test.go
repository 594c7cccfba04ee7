package runtime_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/mcpwasm/mcpwasm/runtime"
)

// OutcomeOf classifies by the wrapped sentinel, however deep, never by the message.
func TestOutcomeOf(t *testing.T) {
	wrap := func(err error) error {
		return fmt.Errorf("outer: %w", &runtime.CallError{Guest: "g", Op: "tool", Name: "t", Err: err})
	}
	for _, tc := range []struct {
		name string
		err  error
		want runtime.Outcome
	}{
		{"nil", nil, runtime.OutcomeOK},
		{"timeout", wrap(fmt.Errorf("%w (1s)", runtime.ErrTimeLimit)), runtime.OutcomeTimeout},
		{"memory", wrap(runtime.ErrMemoryLimit), runtime.OutcomeMemoryLimit},
		{"output", wrap(runtime.ErrOutputLimit), runtime.OutcomeOutputLimit},
		{"trap", wrap(runtime.ErrTrap), runtime.OutcomeTrap},
		{"abi", wrap(runtime.ErrABI), runtime.OutcomeABI},
		{"invalid", wrap(runtime.ErrInvalidArguments), runtime.OutcomeInvalidArguments},
		{"unknown tool", wrap(runtime.ErrUnknownTool), runtime.OutcomeUnknownTool},
		{"cancelled", wrap(fmt.Errorf("%w: %w", runtime.ErrCancelled, context.Canceled)), runtime.OutcomeCancelled},
		{"stopped", wrap(runtime.ErrStopped), runtime.OutcomeStopped},
		{"closed", wrap(runtime.ErrClosed), runtime.OutcomeClosed},
		// A message that reads like a timeout but wraps none of the sentinels.
		{"other", errors.New("time limit exceeded"), runtime.OutcomeError},
	} {
		if got := runtime.OutcomeOf(tc.err); got != tc.want {
			t.Errorf("%s: OutcomeOf = %q, want %q", tc.name, got, tc.want)
		}
	}
}

package runtime_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/mcpwasm/mcpwasm/runtime"
)

// A trap's error quotes the panic line the guest wrote to stderr during that call, so a model
// reads why (issue 45 item 6): never a line of the start or of an earlier call, escaped, and
// bounded.
func TestTrapErrorQuotesThisCallsStderr(t *testing.T) {
	h, _ := newHost(t)
	g := load(t, h, guestWasm(t, "testdata/guests/callpanic"), nil)
	ctx := context.Background()
	trap := func(args string) string {
		t.Helper()
		_, err := g.Call(ctx, "say", []byte(args))
		if !errors.Is(err, runtime.ErrTrap) {
			t.Fatalf("Call(%s) = %v; want ErrTrap", args, err)
		}
		return err.Error()
	}
	// A call that writes only, then one that writes nothing and panics: the panic line, not
	// the earlier call's or the start's.
	call(t, g, "say", `{"lines":["an earlier call's line"]}`)
	got := trap(`{"panic":"bad input: want a date"}`)
	if want := `(last stderr: "panic: bad input: want a date")`; !strings.Contains(got, want) {
		t.Errorf("trap error = %q; want it to contain %q", got, want)
	}
	if strings.Contains(got, "earlier") || strings.Contains(got, "starting") {
		t.Errorf("trap error = %q quotes another call's or the start's line", got)
	}
	// Control and format characters show escaped; a long line is cut at 512 bytes.
	got = trap(`{"panic":"x\u001b[2J\u202ey"}`)
	if want := `(last stderr: "panic: x\x1b[2J\u202ey")`; !strings.Contains(got, want) {
		t.Errorf("trap error = %q; want it to contain %q", got, want)
	}
	got = trap(`{"panic":"` + strings.Repeat("é", 600) + `"}`)
	if want := `(last stderr: "panic: ` + strings.Repeat("é", 252) + `…")`; !strings.Contains(got, want) {
		t.Errorf("trap error = %q; want it to end in %q", got, want)
	}
	// The guest still answers after its traps.
	call(t, g, "say", `{}`)
}

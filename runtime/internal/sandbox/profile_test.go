package sandbox

import (
	"slices"
	"testing"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/runtime/policy"
)

// A profile's environment and random grant are what the tool may use: granted ∩ requested,
// a bare name taking the host's value and dropped when the host has none.
func TestProfileEnvironAndRandom(t *testing.T) {
	t.Setenv("MCPWASM_PROFILE_TEST", "from host")
	granted := policy.Grants{Env: []string{"A=1", "MCPWASM_PROFILE_TEST", "MCPWASM_PROFILE_UNSET", "B=2"}, Random: true}
	tl, err := NewTool("g", "t", granted, false, abi.Requests{Env: []string{"A", "MCPWASM_PROFILE_TEST", "MCPWASM_PROFILE_UNSET"}}, Env{})
	if err != nil {
		t.Fatal(err)
	}
	p := tl.Profile(0)
	if got, want := p.Environ(), []string{"A=1", "MCPWASM_PROFILE_TEST=from host"}; !slices.Equal(got, want) {
		t.Errorf("Environ() = %q, want %q", got, want)
	}
	if p.Random() {
		t.Error("Random() is true, but the tool did not request random")
	}
	tl, err = NewTool("g", "t", granted, false, abi.Requests{Random: true}, Env{})
	if err != nil {
		t.Fatal(err)
	}
	if p := tl.Profile(0); !p.Random() || len(p.Environ()) != 0 {
		t.Errorf("Random() = %v, Environ() = %q; want true and none", p.Random(), p.Environ())
	}
	if p := Bare(0); p.Random() || len(p.Environ()) != 0 {
		t.Errorf("Bare: Random() = %v, Environ() = %q", p.Random(), p.Environ())
	}
}

package kind_test

import (
	"context"
	"errors"
	"testing"

	"github.com/mcpwasm/mcpwasm/runtime/internal/fault"
	"github.com/mcpwasm/mcpwasm/runtime/internal/kind"
)

// fakeKind matches by an import module (Confident) or an export (Possible).
type fakeKind struct {
	name, module, export string
	kind.Kind
}

func (k fakeKind) Name() string { return k.name }

func (k fakeKind) Detect(m *kind.Module) (kind.Match, error) {
	switch {
	case m.ImportsModule(k.module):
		return kind.Confident, nil
	case m.ExportsAll(k.export):
		return kind.Possible, nil
	}
	return kind.No, nil
}

func (k fakeKind) HostModules() []kind.HostModule { return []kind.HostModule{{Name: k.module}} }

func TestDetect(t *testing.T) {
	a := fakeKind{name: "a", module: "a_v1", export: "a_describe"}
	b := fakeKind{name: "b", module: "b_v1", export: "b_describe"}
	c := fakeKind{name: "c", module: "c_v1", export: "a_describe"} // shares a's export
	kinds := []kind.Kind{a, b, c}
	for _, tc := range []struct {
		name string
		m    kind.Module
		want string // the kind, or the error
	}{
		{"import", kind.Module{Imports: []kind.Import{{Module: "b_v1", Name: "f"}}, Exports: []string{"a_describe"}}, "b"},
		{"export", kind.Module{Exports: []string{"b_describe"}}, "b"},
		{"import beats shared export", kind.Module{Imports: []kind.Import{{Module: "c_v1", Name: "f"}}, Exports: []string{"a_describe"}}, "c"},
		{"two imports", kind.Module{Imports: []kind.Import{{Module: "a_v1", Name: "f"}, {Module: "b_v1", Name: "g"}}},
			"ABI violation: module is both a a and a b guest (it imports the host modules of both)"},
		{"shared export", kind.Module{Exports: []string{"a_describe"}},
			"ABI violation: module could be a a or a c guest (its exports match both, it imports neither's host module)"},
		{"none", kind.Module{Imports: []kind.Import{{Module: "env", Name: "f"}, {Module: "env", Name: "g"}, {Module: "wasi_snapshot_preview1", Name: "fd_write"}}, Exports: []string{"run", "main"}},
			"ABI violation: not a guest module: imports env (2), wasi_snapshot_preview1 (1), exports main, run (see abi/ABI.md)"},
		{"many exports", kind.Module{Exports: []string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j"}},
			"ABI violation: not a guest module: imports nothing, exports a, b, c, d, e, f, g, h, … (2 more) (see abi/ABI.md)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k, err := kind.Detect(&tc.m, kinds)
			got := ""
			if err != nil {
				got = err.Error()
				if !errors.Is(err, fault.ErrABI) {
					t.Errorf("error does not wrap ErrABI: %v", err)
				}
			} else {
				got = k.Name()
			}
			if got != tc.want {
				t.Errorf("got %s\nwant %s", got, tc.want)
			}
		})
	}
	if err := kind.CheckHostModules([]kind.Kind{a, fakeKind{name: "d", module: "a_v1"}}); err == nil || err.Error() != `host module "a_v1" is declared by kinds a and d` {
		t.Errorf("CheckHostModules: %v", err)
	}
}

func TestBudget(t *testing.T) {
	b := kind.Budget{Rate: &kind.Rate{}}
	for range kind.CallMessages {
		if !b.Admit(0) {
			t.Fatal("refused within the budget")
		}
	}
	if b.Admit(0) {
		t.Error("admitted past CallMessages")
	}
	if got := b.Take(); got.Messages != kind.CallMessages || got.Dropped != 1 {
		t.Errorf("took %+v", got)
	}
	if b.Messages != 0 || !b.Admit(10) {
		t.Error("Take did not reset the budget")
	}
}

func TestOutputArena(t *testing.T) {
	var o kind.Output
	o.Reset(4)
	if err := o.Set([]byte("12345")); !errors.Is(err, fault.ErrOutputLimit) || err.Error() != "output limit exceeded: result of 5 bytes is over 4 bytes" {
		t.Errorf("Set over the cap: %v", err)
	}
	if err := o.Set([]byte("1234")); err != nil || string(o.Bytes()) != "1234" {
		t.Errorf("Set: %v %q", err, o.Bytes())
	}
	mem := uint64(64 << 10)
	a := kind.NewArena(128<<10, func() uint64 { return mem })
	if err := a.Grow(64 << 10); err != nil {
		t.Fatal(err)
	}
	if err := a.Grow(1); !errors.Is(err, fault.ErrMemoryLimit) || a.Used() != 64<<10 {
		t.Errorf("Grow past the limit: %v, used %d", err, a.Used())
	}
	a.Shrink(1 << 10)
	if err := a.Grow(1 << 10); err != nil {
		t.Errorf("Grow after Shrink: %v", err)
	}
}

// Traits.Check refuses the halves of a behaviour: a snapshot no one can restore, a restore of
// nothing, a state codec without its other parts or without Restore.
func TestTraitsCheck(t *testing.T) {
	snap := func(kind.Started) any { return nil }
	restore := func(context.Context, kind.Instance, *kind.Call, any) (kind.Started, error) { return nil, nil }
	enc := func(any) ([]byte, error) { return nil, nil }
	dec := func([]byte) (any, error) { return nil, nil }
	for _, c := range []struct {
		name string
		t    kind.Traits
		want string
	}{
		{"zero", kind.Traits{}, ""},
		{"snapshots", kind.Traits{Snapshot: snap, Restore: restore}, ""},
		{"on disk", kind.Traits{Snapshot: snap, Restore: restore, EncodeState: enc, DecodeState: dec, StateFormat: "v1"}, ""},
		{"snapshot alone", kind.Traits{Snapshot: snap}, "traits: Snapshot and Restore go together"},
		{"restore alone", kind.Traits{Restore: restore}, "traits: Snapshot and Restore go together"},
		{"codec without format", kind.Traits{Snapshot: snap, Restore: restore, EncodeState: enc, DecodeState: dec},
			"traits: EncodeState, DecodeState and StateFormat go together, and with Restore"},
		{"codec without restore", kind.Traits{EncodeState: enc, DecodeState: dec, StateFormat: "v1"},
			"traits: EncodeState, DecodeState and StateFormat go together, and with Restore"},
	} {
		err := c.t.Check()
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != c.want {
			t.Errorf("%s: Check() = %q, want %q", c.name, got, c.want)
		}
	}
}

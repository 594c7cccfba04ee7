package quickjs

import (
	"errors"
	"reflect"
	"testing"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/runtime/internal/fault"
	"github.com/mcpwasm/mcpwasm/runtime/internal/kind"
)

func TestDetect(t *testing.T) {
	engine := []kind.Import{{Module: "env", Name: "host_call"}, {Module: "env", Name: "host_interrupt"}, {Module: "wasi_snapshot_preview1", Name: "fd_write"}}
	for _, c := range []struct {
		name    string
		m       kind.Module
		want    kind.Match
		wantErr string
	}{
		{"a guest", kind.Module{Imports: engine, Exports: []string{"qjs_init", "malloc"}, Customs: []string{SectionName, BytecodeSectionName}}, kind.Confident, ""},
		{"a guest with bytecode only", kind.Module{Imports: engine, Exports: []string{"qjs_init", "malloc"}, Customs: []string{BytecodeSectionName}}, kind.Confident, ""},
		{"a guest with source only", kind.Module{Imports: engine, Exports: []string{"qjs_init", "malloc"}, Customs: []string{SectionName}}, kind.Confident, ""},
		{"a bare engine", kind.Module{Imports: engine, Exports: []string{"qjs_init", "malloc"}, Customs: []string{"mcpwasm.jsx"}}, kind.No,
			`ABI violation: a bare JavaScript engine: the module is quickjs-wasi with no script (custom section "mcpwasm.js" or "mcpwasm.jsbc"); build the guest with mcpwasm/build.mjs (npm run build)`},
		{"no qjs_init", kind.Module{Imports: engine, Exports: []string{"malloc"}}, kind.No, ""},
		{"a C module importing env", kind.Module{Imports: []kind.Import{{Module: "env", Name: "puts"}}, Exports: []string{"mcpwasm_describe"}}, kind.No, ""},
		{"an engine with another env import", kind.Module{Imports: append(engine, kind.Import{Module: "env", Name: "host_fs"}), Exports: []string{"qjs_init"}, Customs: []string{SectionName}}, kind.No,
			"ABI violation: JavaScript engine imports env.host_fs, which this host does not provide (want quickjs-wasi 3.7.0)"},
	} {
		got, err := Kind{}.Detect(&c.m)
		if c.wantErr != "" {
			if !errors.Is(err, fault.ErrABI) || err.Error() != c.wantErr {
				t.Errorf("%s: %v, want %q", c.name, err, c.wantErr)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("%s: %v, %v; want %v", c.name, got, err, c.want)
		}
	}
}

// The fs request "$ARGS" (build.mjs: a package given its directories as arguments) becomes one
// request per absolute path of the guest's args, cleaned, read-write as the request; other
// requests and arguments stay as they are.
func TestArgRequests(t *testing.T) {
	start := abi.Requests{Env: []string{"HOME"}, FS: []abi.FSRequest{{Path: "/cache"}, {Path: ArgsPath, RW: true}}}
	got := Kind{}.ArgRequests(start, []string{"/data/", "--verbose", "/srv/../notes", "relative"})
	want := abi.Requests{Env: []string{"HOME"}, FS: []abi.FSRequest{{Path: "/cache"}, {Path: "/data", RW: true}, {Path: "/notes", RW: true}}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ArgRequests: %+v, want %+v", got, want)
	}
	if got := (Kind{}).ArgRequests(abi.Requests{FS: []abi.FSRequest{{Path: ArgsPath}}}, nil); len(got.FS) != 0 {
		t.Errorf("no args: %+v, want no fs requests", got.FS)
	}
}

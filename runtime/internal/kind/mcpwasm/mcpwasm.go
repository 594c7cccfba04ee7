// Package mcpwasm is the guest kind of mcpwasm's own ABI (abi/ABI.md): modules that export
// mcpwasm_abi_version, mcpwasm_describe, mcpwasm_alloc and mcpwasm_call (and optionally
// mcpwasm_read, mcpwasm_prompt, mcpwasm_complete), and import the host module mcpwasm_v1.
package mcpwasm

import (
	"bytes"
	"context"
	"fmt"
	"strings"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/internal/size"
	"github.com/mcpwasm/mcpwasm/runtime/internal/fault"
	"github.com/mcpwasm/mcpwasm/runtime/internal/kind"
	"github.com/tetratelabs/wazero/api"
)

// Kind is the mcpwasm ABI as a kind.Kind. It holds no state.
type Kind struct{}

var _ kind.Kind = Kind{}

// Name implements kind.Kind.
func (Kind) Name() string { return "mcpwasm" }

// StartRequests implements kind.Kind: a guest of this ABI names its requests in its describe
// answer only (ABI.md §3), so its start runs with no grants.
func (Kind) StartRequests(*kind.Module, map[string][]byte) abi.Requests { return abi.Requests{} }

// Detect implements kind.Kind: an import of mcpwasm_v1 is Confident (an unknown function of
// it is an error wrapping fault.ErrABI), the export mcpwasm_describe alone Possible.
func (Kind) Detect(m *kind.Module) (kind.Match, error) {
	match := kind.No
	for _, imp := range m.Imports {
		if imp.Module != abi.ImportModule {
			continue
		}
		switch imp.Name {
		case abi.ImportLog, abi.ImportProgress, abi.ImportCancelled, abi.ImportRequest, abi.ImportResponse:
			match = kind.Confident
		default:
			return kind.No, fmt.Errorf("%w: module imports %s.%s, which this host does not provide", fault.ErrABI, imp.Module, imp.Name)
		}
	}
	if match == kind.No && m.ExportsAll(abi.ExportDescribe) {
		match = kind.Possible
	}
	return match, nil
}

// HostModules implements kind.Kind: mcpwasm_v1 (ABI.md §6).
func (Kind) HostModules() []kind.HostModule {
	i32, i64, f64 := api.ValueTypeI32, api.ValueTypeI64, api.ValueTypeF64
	return []kind.HostModule{{Name: abi.ImportModule, Funcs: []kind.HostFunc{
		{Name: abi.ImportLog, Params: []api.ValueType{i32, i32, i32}, Results: []api.ValueType{i32},
			ParamNames: []string{"level", "msg_ptr", "msg_len"}, Fn: hostLog},
		{Name: abi.ImportProgress, Params: []api.ValueType{f64, f64, i32, i32}, Results: []api.ValueType{i32},
			ParamNames: []string{"progress", "total", "msg_ptr", "msg_len"}, Fn: hostProgress},
		{Name: abi.ImportCancelled, Results: []api.ValueType{i32}, Fn: hostCancelled},
		{Name: abi.ImportRequest, Params: []api.ValueType{i32, i32, i32, i32}, Results: []api.ValueType{i64},
			ParamNames: []string{"kind_ptr", "kind_len", "req_ptr", "req_len"}, Fn: hostRequest},
		{Name: abi.ImportResponse, Params: []api.ValueType{i32, i32}, Results: []api.ValueType{i32},
			ParamNames: []string{"buf_ptr", "buf_len"}, Fn: hostResponse},
	}}}
}

// Check implements kind.Kind: the four required exports and the signatures of the optional
// ones (ABI.md §2).
func (Kind) Check(exports map[string]api.FunctionDefinition) error {
	i32, i64 := api.ValueTypeI32, api.ValueTypeI64
	want := []struct {
		name           string
		params, result []api.ValueType
	}{
		{abi.ExportABIVersion, nil, []api.ValueType{i32}},
		{abi.ExportAlloc, []api.ValueType{i32}, []api.ValueType{i32}},
		{abi.ExportDescribe, nil, []api.ValueType{i64}},
		{abi.ExportCall, []api.ValueType{i32, i32, i32, i32}, []api.ValueType{i64}},
	}
	for _, w := range want {
		def, ok := exports[w.name]
		if !ok {
			return fmt.Errorf("%w: missing export %s (not an mcpwasm guest? see abi/ABI.md)", fault.ErrABI, w.name)
		}
		if !bytes.Equal(def.ParamTypes(), w.params) || !bytes.Equal(def.ResultTypes(), w.result) {
			return fmt.Errorf("%w: export %s has signature %s, want %s", fault.ErrABI, w.name,
				signature(def.ParamTypes(), def.ResultTypes()), signature(w.params, w.result))
		}
	}
	for _, w := range []struct {
		name   string
		params []api.ValueType
	}{
		{abi.ExportRead, []api.ValueType{i32, i32}},
		{abi.ExportComplete, []api.ValueType{i32, i32}},
		{abi.ExportPrompt, []api.ValueType{i32, i32, i32, i32}},
	} {
		if def, ok := exports[w.name]; ok && (!bytes.Equal(def.ParamTypes(), w.params) || !bytes.Equal(def.ResultTypes(), []api.ValueType{i64})) {
			return fmt.Errorf("%w: export %s has signature %s, want %s", fault.ErrABI, w.name,
				signature(def.ParamTypes(), def.ResultTypes()), signature(w.params, []api.ValueType{i64}))
		}
	}
	return nil
}

func signature(params, results []api.ValueType) string {
	names := func(ts []api.ValueType) string {
		s := make([]string, len(ts))
		for i, t := range ts {
			s[i] = api.ValueTypeName(t)
		}
		return strings.Join(s, ", ")
	}
	return "(" + names(params) + ") -> (" + names(results) + ")"
}

// CheckManifest implements kind.Kind: resources need mcpwasm_read, prompts mcpwasm_prompt,
// completions mcpwasm_complete (ABI.md §2.4, §2.5).
func (Kind) CheckManifest(m *abi.Manifest, exports map[string]api.FunctionDefinition) error {
	if _, ok := exports[abi.ExportRead]; !ok && len(m.Resources)+len(m.ResourceTemplates) > 0 {
		return fmt.Errorf("%w: manifest declares resources but the module does not export %s", fault.ErrABI, abi.ExportRead)
	}
	if _, ok := exports[abi.ExportPrompt]; !ok && len(m.Prompts) > 0 {
		return fmt.Errorf("%w: manifest declares prompts but the module does not export %s", fault.ErrABI, abi.ExportPrompt)
	}
	if _, ok := exports[abi.ExportComplete]; !ok && m.Completions {
		return fmt.Errorf("%w: manifest declares completions but the module does not export %s", fault.ErrABI, abi.ExportComplete)
	}
	return nil
}

// exports are the functions an instance resolves once, in this order.
var exports = [...]string{abi.ExportABIVersion, abi.ExportDescribe, abi.ExportAlloc, abi.ExportCall, abi.ExportRead, abi.ExportPrompt, abi.ExportComplete}

// Indexes into started.fns.
const (
	fnVersion = iota
	fnDescribe
	fnAlloc
	fnCall
	fnRead
	fnPrompt
	fnComplete
)

// started is one instance's state: its entry points, its input region and the response of
// its last request import.
type started struct {
	in           kind.Instance
	fns          [len(exports)]api.Function // the optional ones may be nil
	stack        []uint64                   // reused for CallWithStack; 4 params is the widest export
	inPtr, inCap uint32                     // the input region the guest gave us (ABI.md §2.1)
	pending      []byte                     // response of the last request import (ABI.md §6.1)
}

// Start implements kind.Kind. There is nothing to run: _initialize ran in the pool.
func (Kind) Start(_ context.Context, in kind.Instance, _ *kind.Call) (kind.Started, error) {
	s := &started{in: in, stack: make([]uint64, 4)}
	for i, name := range exports {
		s.fns[i] = in.Func(name)
	}
	return s, nil
}

// Traits implements kind.Kind: snapshots (Snapshot, Restore); nothing else.
func (k Kind) Traits() kind.Traits {
	return kind.Traits{Snapshot: k.Snapshot, Restore: k.Restore}
}

// Snapshot is the kind's Traits.Snapshot: Start learns nothing from the guest.
func (Kind) Snapshot(kind.Started) any { return nil }

// Restore is the kind's Traits.Restore: an mcpwasm instance's state is its guest memory and
// globals, and its Start runs no guest code, so a restored instance starts as a fresh one.
func (k Kind) Restore(ctx context.Context, in kind.Instance, c *kind.Call, _ any) (kind.Started, error) {
	return k.Start(ctx, in, c)
}

// Describe implements kind.Started: mcpwasm_abi_version must be abi.Version, then
// mcpwasm_describe's region is the manifest.
func (s *started) Describe(ctx context.Context, c *kind.Call) ([]byte, error) {
	if err := s.in.Invoke(ctx, s.fns[fnVersion], s.stack[:1]); err != nil {
		return nil, fmt.Errorf("%s: %w", abi.ExportABIVersion, err)
	}
	if v := int32(s.stack[0]); v != abi.Version {
		return nil, fmt.Errorf("%w: guest ABI %d, host supports %d", fault.ErrABI, v, abi.Version)
	}
	if err := s.in.Invoke(ctx, s.fns[fnDescribe], s.stack[:1]); err != nil {
		return nil, fmt.Errorf("%s: %w", abi.ExportDescribe, err)
	}
	raw, err := s.result(s.stack[0], c.Limits.OutputBytes)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", abi.ExportDescribe, err)
	}
	return raw, nil
}

// CallTool implements kind.Started: mcpwasm_call(name, args).
func (s *started) CallTool(ctx context.Context, c *kind.Call, args []byte) ([]byte, error) {
	return s.invoke(ctx, c, fnCall, c.Tool, args)
}

// GetPrompt implements kind.Started: mcpwasm_prompt(name, args).
func (s *started) GetPrompt(ctx context.Context, c *kind.Call, name string, args []byte) ([]byte, error) {
	return s.invoke(ctx, c, fnPrompt, name, args)
}

// ReadResource implements kind.Started: mcpwasm_read(uri).
func (s *started) ReadResource(ctx context.Context, c *kind.Call, uri string) ([]byte, error) {
	return s.invoke(ctx, c, fnRead, uri, nil)
}

// Complete implements kind.Started: mcpwasm_complete(req).
func (s *started) Complete(ctx context.Context, c *kind.Call, req []byte) ([]byte, error) {
	return s.invoke(ctx, c, fnComplete, string(req), nil)
}

// invoke writes name and args into the input region and calls export fn with them (ABI.md
// §2.2, §2.4); mcpwasm_read and mcpwasm_complete take only the name. It returns a copy of
// the result region.
func (s *started) invoke(ctx context.Context, c *kind.Call, fn int, name string, args []byte) ([]byte, error) {
	if s.fns[fn] == nil {
		return nil, fmt.Errorf("%w: module does not export %s", fault.ErrABI, exports[fn])
	}
	need := uint64(len(name)) + uint64(len(args))
	if need > 1<<31 {
		return nil, fmt.Errorf("%w: input of %d bytes is too large", fault.ErrABI, need)
	}
	mem := s.in.Memory()
	if uint32(need) > s.inCap {
		s.stack[0] = need
		if err := s.in.Invoke(ctx, s.fns[fnAlloc], s.stack[:1]); err != nil {
			return nil, during(abi.ExportAlloc, err)
		}
		ptr := uint32(s.stack[0])
		if ptr == 0 || uint64(ptr)+need > uint64(mem.Size()) {
			return nil, fmt.Errorf("%w: %s(%d) returned %#x, not a region in linear memory", fault.ErrABI, abi.ExportAlloc, need, ptr)
		}
		s.inPtr, s.inCap = ptr, uint32(need)
	}
	buf, ok := mem.Read(s.inPtr, uint32(need))
	if !ok {
		return nil, fmt.Errorf("%w: input region %#x+%d left linear memory", fault.ErrABI, s.inPtr, need)
	}
	n := copy(buf, name)
	copy(buf[n:], args)

	s.pending = nil
	st := s.stack[:4]
	st[0], st[1], st[2], st[3] = uint64(s.inPtr), uint64(len(name)), uint64(s.inPtr)+uint64(len(name)), uint64(len(args))
	if fn == fnRead || fn == fnComplete {
		st = st[:2]
	}
	err := s.in.Invoke(ctx, s.fns[fn], st)
	s.pending = nil
	if err != nil {
		return nil, err
	}
	return s.result(st[0], c.Limits.OutputBytes)
}

// during names export as where err happened, unless err is the call's end from outside
// (time limit, cancellation, stop, close): that ends the call wherever it lands, and a call
// stopped while it allocates its input fails as one stopped in the tool does.
func during(export string, err error) error {
	if fault.Interrupted(err) {
		return err
	}
	return fmt.Errorf("%s: %w", export, err)
}

// result copies the region of a packed (ptr, len) result, at most maxLen bytes.
func (s *started) result(packed uint64, maxLen int) ([]byte, error) {
	ptr, n := abi.Unpack(packed)
	if uint64(n) > uint64(maxLen) {
		return nil, fmt.Errorf("%w: result of %s is over %s", fault.ErrOutputLimit, size.Format(uint64(n)), size.Format(uint64(maxLen)))
	}
	if n == 0 {
		return nil, fmt.Errorf("%w: guest returned an empty region", fault.ErrABI)
	}
	b, err := s.in.Region(ptr, n)
	if err != nil {
		return nil, err
	}
	return bytes.Clone(b), nil
}

// Package quickjs runs JavaScript guests: the quickjs-wasi engine (QuickJS-NG built as a WASI
// reactor, npm quickjs-wasi 3.7.0) with the guest's script in a custom section "mcpwasm.js"
// of the same module (abi/js/build.mjs appends it). The host drives the engine through its
// C API exports (qjs_*): it evaluates the script once per instance, then calls the shim's
// globalThis.__mcpwasm.dispatch and poll with JSON strings (abi/js/shim.js). Everything the
// script reaches outside the engine goes through one host function, __mcpwasm_host, which
// this package maps onto the call's sandbox (Call): the operator's grants decide.
//
// engine.go, host.go and section.go drive the engine and know nothing of the runtime;
// kind.go makes them the guest kind "javascript" of the seam (runtime/internal/kind). The
// package does not import runtime.
package quickjs

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/tetratelabs/wazero/api"
)

// SectionName is the custom section holding a JavaScript guest's script (shim and bundle).
const SectionName = "mcpwasm.js"

// EngineSHA256 is the sha256 of the engine build.mjs pins (quickjs-wasi 3.7.0's quickjs.wasm).
const EngineSHA256 = "c0bd8f296e18cf074969f6401b9ecb72609a1323818ec2b9bf7a8f8d740d1363"

// Errors of a VM. ErrInterrupted and ErrMemory wrap what the engine reported; a Run that
// fails with them leaves the VM usable (QuickJS unwinds the script), but callers may discard
// it.
var (
	// ErrInterrupted: the call's context ended (deadline, cancellation) while the script ran.
	ErrInterrupted = errors.New("script interrupted")
	// ErrMemory: the script reached the engine's memory limit.
	ErrMemory = errors.New("script out of memory")
	// ErrScript: the script failed to load (a syntax error, a throw at top level, no McpServer).
	ErrScript = errors.New("script failed")
	// ErrEngine: the module does not export what the engine must (not quickjs-wasi 3.x).
	ErrEngine = errors.New("not a quickjs-wasi engine")
)

// EntryError is an entry's JSON-RPC error: the script threw an McpError (invalid params, an
// unknown tool or resource) or an entry failed outside a tool's handler.
type EntryError struct {
	Code    int    `json:"code"`
	Message string `json:"error"`
}

func (e *EntryError) Error() string { return e.Message }

// Entry names the shim's entry points (dispatch's first argument).
const (
	EntryDescribe     = "describe"
	EntryCallTool     = "callTool"
	EntryReadResource = "readResource"
	EntryGetPrompt    = "getPrompt"
	EntryComplete     = "complete"
)

// Exports the engine must have; Check verifies them.
var exportNames = []string{
	"malloc", "free", "qjs_init", "qjs_eval", "qjs_call", "qjs_new_host_function",
	"qjs_get_prop_string", "qjs_set_prop_string", "qjs_new_string", "qjs_get_string_len",
	"qjs_free_cstring", "qjs_free_value", "qjs_is_exception", "qjs_get_exception",
	"qjs_is_job_pending", "qjs_execute_pending_job", "qjs_set_memory_limit",
	"qjs_set_interrupt_handler", "qjs_get_global", "qjs_promise_state", "qjs_promise_result",
	"qjs_is_uncatchable_error", "qjs_eval_bytecode",
}

// Check verifies that exports (the module's export names) hold every C API function the host
// calls; the error names the first missing one and wraps ErrEngine.
func Check(exports map[string]api.FunctionDefinition) error {
	for _, n := range exportNames {
		d, ok := exports[n]
		if !ok {
			return fmt.Errorf("%w: export %q is missing", ErrEngine, n)
		}
		for _, t := range append(d.ParamTypes(), d.ResultTypes()...) {
			if t != api.ValueTypeI32 {
				return fmt.Errorf("%w: export %q has a non-i32 signature", ErrEngine, n)
			}
		}
	}
	return nil
}

// Engine is one instance of the engine module: the kind seam's kind.Instance satisfies it
// (Invoke applies the call's deadline, cancellation and memory limit; it is the only way in).
type Engine interface {
	// Func returns the exported function name, or nil.
	Func(name string) api.Function
	// Invoke calls fn with stack (params in, results out).
	Invoke(ctx context.Context, fn api.Function, stack []uint64) error
	// Memory is the instance's linear memory.
	Memory() api.Memory
}

// VM is one started engine instance. Its methods must not run concurrently.
type VM struct {
	// Call, if set, is the call Run consults: its Interrupted (the entry must end: Run stops
	// polling a pending entry then) and its Ending (the entry is ending: Run calls the shim's
	// abort once, which aborts the entry's AbortSignal, and records on the call that the
	// script was told). Nil, or nil fields: the end of ctx, never told.
	Call *Call

	e Engine
	f struct {
		malloc, free, eval, call, getProp, setProp, newString, getString, freeCString,
		freeValue, isException, getException, jobPending, execJob, promiseState,
		promiseResult, uncatchable api.Function
	}
	scratch        uint32 // 8 bytes of guest memory for out-parameters
	global, mcp    uint32 // JSValue*: the global object, globalThis.__mcpwasm
	dispatch, poll uint32 // JSValue*: its entry functions
	seed           uint32 // address of Math.random's state in the context; 0: not found (snapshot.go)
	clock          uint32 // JSValue*: a function reading the instance's clocks, for a new seed
	abort          uint32 // JSValue*: its abort(why) (0: a shim without one)
	top            uint32 // JSValue*: a process's top-level promise while it is pending (Serve)

	// Made on first use by this VM, after any snapshot (a restored VM makes its own): the
	// entry names as JS strings (JSValue*, kept for the VM's life), and a guest buffer that
	// Run stages its payload in before qjs_new_string copies it (buf, grown as needed).
	names        map[string]uint32
	buf, bufSize uint32
}

// Start prepares a fresh instance of the engine — instantiated with this package's host
// functions and WASI, its _initialize already run (the pool runs it for every kind) — under
// ctx, whose Call the script's top level may use, and evaluates code as an ES module (its
// bytecode if it has some, else its source): qjs_init, the memory limit (memoryLimit bytes of
// engine heap; 0 keeps none), the interrupt handler, the host function, the script, and the
// job queue until it is empty. Math.random's seed is drawn from the random grant when ctx
// carries a Call (WithCall) granting it; otherwise it is the engine's own, from the clock.
func Start(ctx context.Context, e Engine, code Code, memoryLimit uint64) (*VM, error) {
	return startScript(ctx, e, code, memoryLimit, false)
}

// startScript is Start; a process (Serve) may leave its top level pending.
func startScript(ctx context.Context, e Engine, code Code, memoryLimit uint64, process bool) (*VM, error) {
	v, err := newVM(e)
	if err != nil {
		return nil, err
	}
	fn, f := e.Func, &v.f
	if r, err := v.call0(ctx, fn("qjs_init")); err != nil {
		return nil, fmt.Errorf("engine qjs_init: %w", err)
	} else if r != 0 {
		return nil, fmt.Errorf("%w: qjs_init failed (%d)", ErrEngine, int32(r))
	}
	if memoryLimit > 0 {
		lim := min(memoryLimit, 1<<32-1)
		if _, err := v.call0(ctx, fn("qjs_set_memory_limit"), lim); err != nil {
			return nil, err
		}
	}
	if _, err := v.call0(ctx, fn("qjs_set_interrupt_handler"), 1); err != nil {
		return nil, err
	}
	if v.scratch, err = v.malloc(ctx, 8); err != nil {
		return nil, err
	}
	if v.global, err = v.call0(ctx, fn("qjs_get_global")); err != nil {
		return nil, err
	}
	// Before the script runs: where the context keeps Math.random's state, and with the
	// random grant a seed drawn from it (snapshot.go).
	if err := v.findSeed(ctx); err != nil {
		return nil, err
	}
	if err := v.seedFromCall(ctx); err != nil {
		return nil, err
	}
	// The host function: __mcpwasm_host(op, payload) -> string (host.go). The shim takes it
	// off the global object first thing.
	name, err := v.cstring(ctx, hostFuncName)
	if err != nil {
		return nil, err
	}
	hf, err := v.call0(ctx, fn("qjs_new_host_function"), uint64(name), uint64(len(hostFuncName)), 0)
	if err != nil {
		return nil, err
	}
	if _, err := v.call0(ctx, f.setProp, uint64(v.global), uint64(name), uint64(hf)); err != nil {
		return nil, err
	}
	v.freeValue(ctx, hf)
	v.freePtr(ctx, name)

	// Evaluate the script as a module (flag 1: JS_EVAL_TYPE_MODULE): a promise of its namespace.
	var res uint32
	if len(code.Bytecode) > 0 {
		bc, err := v.bytes(ctx, code.Bytecode, false)
		if err != nil {
			return nil, err
		}
		res, err = v.call0(ctx, fn("qjs_eval_bytecode"), uint64(bc), uint64(len(code.Bytecode)))
		v.freePtr(ctx, bc)
		if err != nil {
			return nil, err
		}
	} else {
		src, err := v.bytes(ctx, code.Source, true)
		if err != nil {
			return nil, err
		}
		file, err := v.cstring(ctx, "guest.js")
		if err != nil {
			return nil, err
		}
		res, err = v.call0(ctx, f.eval, uint64(src), uint64(len(code.Source)), uint64(file), 1)
		v.freePtr(ctx, src)
		v.freePtr(ctx, file)
		if err != nil {
			return nil, err
		}
	}
	if err := v.checkException(ctx, res, "evaluating the script"); err != nil {
		return nil, err
	}
	if err := v.runJobs(ctx); err != nil {
		v.freeValue(ctx, res)
		return nil, err
	}
	state, err := v.call0(ctx, f.promiseState, uint64(res))
	if err != nil {
		return nil, err
	}
	switch state {
	case 2: // rejected
		reason, _ := v.call0(ctx, f.promiseResult, uint64(res))
		msg := v.describeError(ctx, reason)
		v.freeValue(ctx, reason)
		v.freeValue(ctx, res)
		return nil, fmt.Errorf("%w: %s", ErrScript, msg)
	case 0:
		if !process {
			v.freeValue(ctx, res)
			return nil, fmt.Errorf("%w: its top level awaits something that never settles", ErrScript)
		}
		v.top = res // a process's top level may await its transport: the pump runs on, checking it
		res = 0
	}
	if res != 0 {
		v.freeValue(ctx, res)
	}

	if v.mcp, err = v.prop(ctx, v.global, "__mcpwasm"); err != nil {
		return nil, err
	}
	for _, p := range []struct {
		dst  *uint32
		name string
	}{{&v.dispatch, "dispatch"}, {&v.poll, "poll"}, {&v.abort, "abort"}} {
		if *p.dst, err = v.prop(ctx, v.mcp, p.name); err != nil {
			return nil, err
		}
	}
	return v, nil
}

// newVM resolves the engine's exports the VM calls.
func newVM(e Engine) (*VM, error) {
	v := &VM{e: e}
	f := &v.f
	for _, p := range []struct {
		dst  *api.Function
		name string
	}{
		{&f.malloc, "malloc"}, {&f.free, "free"}, {&f.eval, "qjs_eval"}, {&f.call, "qjs_call"},
		{&f.getProp, "qjs_get_prop_string"}, {&f.setProp, "qjs_set_prop_string"},
		{&f.newString, "qjs_new_string"}, {&f.getString, "qjs_get_string_len"},
		{&f.freeCString, "qjs_free_cstring"}, {&f.freeValue, "qjs_free_value"},
		{&f.isException, "qjs_is_exception"}, {&f.getException, "qjs_get_exception"},
		{&f.jobPending, "qjs_is_job_pending"}, {&f.execJob, "qjs_execute_pending_job"},
		{&f.promiseState, "qjs_promise_state"}, {&f.promiseResult, "qjs_promise_result"},
		{&f.uncatchable, "qjs_is_uncatchable_error"},
	} {
		if *p.dst = e.Func(p.name); *p.dst == nil {
			return nil, fmt.Errorf("%w: export %q is missing", ErrEngine, p.name)
		}
	}
	return v, nil
}

// Run runs one entry of the shim (EntryCallTool, …) with payload, its JSON params, and
// returns its result JSON: it calls dispatch, then runs the job queue and polls until the
// entry's promise settles (poll fires the script's timers in due order). An entry's JSON-RPC
// error is an *EntryError; the end of ctx is ErrInterrupted; the engine's memory limit is
// ErrMemory.
func (v *VM) Run(ctx context.Context, entry string, payload []byte) ([]byte, error) {
	out, err := v.dispatchEntry(ctx, entry, payload)
	if err != nil {
		return nil, err
	}
	c := v.Call
	if c == nil {
		c = &Call{}
	}
	c.told = false
	for len(out) == 0 {
		if err := v.runJobs(ctx); err != nil {
			return nil, err
		}
		if !c.told && c.Ending != nil && v.abort != 0 {
			if why := c.Ending(); why != "" {
				// The entry's signal aborts; its listeners' jobs run before the next poll.
				c.told = true
				if _, err := v.callJS(ctx, v.abort, []byte(why)); err != nil && !errors.Is(err, ErrScript) {
					return nil, err // a script built with a shim before abort has none: ErrScript
				}
				continue
			}
		}
		if out, err = v.callJS(ctx, v.poll); err != nil {
			return nil, err
		}
		if len(out) == 0 && c.interrupted(ctx) {
			return nil, v.fatal(ctx, "interrupted")
		}
	}
	switch out[0] {
	case 'R':
		return out[1:], nil
	case 'E':
		e := &EntryError{}
		if err := json.Unmarshal(out[1:], e); err != nil {
			return nil, fmt.Errorf("%w: malformed entry error %.200q", ErrScript, out[1:])
		}
		return nil, e
	case 'F':
		return nil, v.fatal(ctx, string(out[1:]))
	}
	return nil, fmt.Errorf("%w: malformed answer %.200q", ErrScript, out)
}

// fatal classifies an uncatchable engine error message.
func (v *VM) fatal(ctx context.Context, msg string) error {
	switch {
	case strings.Contains(msg, "interrupted"):
		if c := context.Cause(ctx); c != nil {
			return fmt.Errorf("%w: %w", ErrInterrupted, c)
		}
		return ErrInterrupted
	case strings.Contains(msg, "out of memory"):
		return ErrMemory
	}
	return fmt.Errorf("%w: %s", ErrScript, msg)
}

// runJobs runs the engine's job queue (promise reactions) until it is empty.
func (v *VM) runJobs(ctx context.Context) error {
	for {
		n, err := v.call0(ctx, v.f.jobPending)
		if err != nil {
			return err
		}
		if n == 0 {
			return nil
		}
		r, err := v.call0(ctx, v.f.execJob)
		if err != nil {
			return err
		}
		if int32(r) < 0 {
			exc, _ := v.call0(ctx, v.f.getException)
			msg := v.describeError(ctx, exc)
			v.freeValue(ctx, exc)
			return v.fatal(ctx, msg)
		}
	}
}

// dispatchEntry calls the shim's dispatch(entry, payload): the entry's name is a string the
// VM made once, the payload is staged in the VM's buffer. Eight calls into the engine in all
// (a new string and its check, the call and its check, reading and freeing the answer,
// freeing the answer and the payload's string).
func (v *VM) dispatchEntry(ctx context.Context, entry string, payload []byte) ([]byte, error) {
	name, err := v.name(ctx, entry)
	if err != nil {
		return nil, err
	}
	p, err := v.stagedString(ctx, payload)
	if err != nil {
		return nil, err
	}
	defer v.freeValue(ctx, p)
	return v.callValues(ctx, v.dispatch, name, p)
}

// name returns the JS string of an entry's name, made on first use.
func (v *VM) name(ctx context.Context, entry string) (uint32, error) {
	if s, ok := v.names[entry]; ok {
		return s, nil
	}
	s, err := v.newString(ctx, []byte(entry))
	if err != nil {
		return 0, err
	}
	if v.names == nil {
		v.names = make(map[string]uint32, 5)
	}
	v.names[entry] = s
	return s, nil
}

// maxKeptBuf is the largest staging buffer a VM keeps between calls. A larger payload's
// buffer is freed once the string is made, as before there was a buffer: held for the VM's
// life it would take its size from the script's heap on every later call.
const maxKeptBuf = 64 << 10

// stagedString makes a JS string from b (a new JSValue*) through the VM's buffer: no malloc
// or free unless b is longer than any string before it (or than maxKeptBuf).
func (v *VM) stagedString(ctx context.Context, b []byte) (uint32, error) {
	n := uint32(len(b)) + 1 // and a NUL, as qjs_new_string's callers write
	if n > v.bufSize {
		size := max(n, min(2*v.bufSize, maxKeptBuf), 256)
		p, err := v.malloc(ctx, size)
		if err != nil {
			return 0, err
		}
		if v.buf != 0 {
			v.freePtr(ctx, v.buf)
		}
		v.buf, v.bufSize = p, size
	}
	if !v.e.Memory().Write(v.buf, b) || !v.e.Memory().WriteByte(v.buf+uint32(len(b)), 0) {
		return 0, fmt.Errorf("%w: malloc returned memory outside the instance", ErrEngine)
	}
	val, err := v.call0(ctx, v.f.newString, uint64(v.buf), uint64(len(b)))
	if v.bufSize > maxKeptBuf {
		v.freePtr(ctx, v.buf)
		v.buf, v.bufSize = 0, 0
	}
	if err != nil {
		return 0, err
	}
	if err := v.checkException(ctx, val, "making a string"); err != nil {
		return 0, err
	}
	return val, nil
}

// callJS calls the JS function fn with string arguments (at most two) and returns its
// string result.
func (v *VM) callJS(ctx context.Context, fn uint32, args ...[]byte) ([]byte, error) {
	var vals [2]uint32
	if len(args) > len(vals) {
		return nil, fmt.Errorf("%w: %d arguments for the shim (two at most)", ErrEngine, len(args))
	}
	n := 0
	defer func() {
		for _, a := range vals[:n] {
			v.freeValue(ctx, a)
		}
	}()
	for _, a := range args {
		s, err := v.newString(ctx, a)
		if err != nil {
			return nil, err
		}
		vals[n] = s
		n++
	}
	return v.callValues(ctx, fn, vals[:n]...)
}

// callValues calls the JS function fn with this globalThis.__mcpwasm and the JSValue*
// arguments vals (at most two, which the caller keeps) and returns its string result. The
// argument vector is the VM's 8-byte scratch: nothing else writes it until the call returns
// (host functions work through their own view of the instance, host.go).
func (v *VM) callValues(ctx context.Context, fn uint32, vals ...uint32) ([]byte, error) {
	if len(vals) > 2 {
		return nil, fmt.Errorf("%w: %d arguments for the shim (two at most)", ErrEngine, len(vals))
	}
	var argv [8]byte
	for i, a := range vals {
		binary.LittleEndian.PutUint32(argv[4*i:], a)
	}
	if len(vals) > 0 && !v.e.Memory().Write(v.scratch, argv[:4*len(vals)]) {
		return nil, fmt.Errorf("%w: argv outside memory", ErrEngine)
	}
	res, err := v.call0(ctx, v.f.call, uint64(fn), uint64(v.mcp), uint64(len(vals)), uint64(v.scratch))
	if err != nil {
		return nil, err
	}
	if err := v.checkException(ctx, res, "calling the shim"); err != nil {
		return nil, err
	}
	defer v.freeValue(ctx, res)
	return v.toString(ctx, res)
}

// checkException frees res and returns the pending exception as an error if res is one.
func (v *VM) checkException(ctx context.Context, res uint32, what string) error {
	isExc, err := v.call0(ctx, v.f.isException, uint64(res))
	if err != nil {
		return err
	}
	if isExc == 0 {
		return nil
	}
	v.freeValue(ctx, res)
	exc, err := v.call0(ctx, v.f.getException)
	if err != nil {
		return err
	}
	unc, _ := v.call0(ctx, v.f.uncatchable, uint64(exc))
	msg := v.describeError(ctx, exc)
	v.freeValue(ctx, exc)
	if e := v.fatal(ctx, msg); unc != 0 || !errors.Is(e, ErrScript) {
		return e
	}
	return fmt.Errorf("%w: %s: %s", ErrScript, what, msg)
}

// describeError is an exception's "Name: message" and the first lines of its stack.
func (v *VM) describeError(ctx context.Context, exc uint32) string {
	b, err := v.toString(ctx, exc)
	if err != nil {
		return err.Error()
	}
	msg := string(b)
	if st, err := v.prop(ctx, exc, "stack"); err == nil {
		if s, err := v.toString(ctx, st); err == nil && len(s) > 0 && string(s) != "undefined" {
			lines := strings.SplitN(strings.TrimSpace(string(s)), "\n", 4)
			msg += " (" + strings.Join(lines[:min(len(lines), 3)], "; ") + ")"
		}
		v.freeValue(ctx, st)
	}
	return msg
}

// prop returns obj[name] (a new JSValue*).
func (v *VM) prop(ctx context.Context, obj uint32, name string) (uint32, error) {
	p, err := v.cstring(ctx, name)
	if err != nil {
		return 0, err
	}
	defer v.freePtr(ctx, p)
	return v.call0(ctx, v.f.getProp, uint64(obj), uint64(p))
}

// toString converts a JS value to its UTF-8 string (ToString semantics).
func (v *VM) toString(ctx context.Context, val uint32) ([]byte, error) {
	c, err := v.call0(ctx, v.f.getString, uint64(val), uint64(v.scratch))
	if err != nil {
		return nil, err
	}
	if c == 0 {
		return nil, fmt.Errorf("%w: a value has no string form", ErrScript)
	}
	n, ok := v.e.Memory().ReadUint32Le(v.scratch)
	if !ok {
		return nil, fmt.Errorf("%w: string length outside memory", ErrEngine)
	}
	b, ok := v.e.Memory().Read(c, n)
	if !ok {
		return nil, fmt.Errorf("%w: string outside memory", ErrEngine)
	}
	out := append([]byte(nil), b...)
	_, err = v.call0(ctx, v.f.freeCString, uint64(c))
	return out, err
}

// newString makes a JS string from UTF-8 bytes (a new JSValue*).
func (v *VM) newString(ctx context.Context, s []byte) (uint32, error) {
	p, err := v.bytes(ctx, s, true)
	if err != nil {
		return 0, err
	}
	defer v.freePtr(ctx, p)
	val, err := v.call0(ctx, v.f.newString, uint64(p), uint64(len(s)))
	if err != nil {
		return 0, err
	}
	if err := v.checkException(ctx, val, "making a string"); err != nil {
		return 0, err
	}
	return val, nil
}

// bytes copies b into fresh guest memory (NUL-terminated if nul) and returns its address.
func (v *VM) bytes(ctx context.Context, b []byte, nul bool) (uint32, error) {
	n := uint32(len(b))
	if nul {
		n++
	}
	p, err := v.malloc(ctx, n)
	if err != nil {
		return 0, err
	}
	if !v.e.Memory().Write(p, b) || (nul && !v.e.Memory().WriteByte(p+uint32(len(b)), 0)) {
		return 0, fmt.Errorf("%w: malloc returned memory outside the instance", ErrEngine)
	}
	return p, nil
}

func (v *VM) cstring(ctx context.Context, s string) (uint32, error) {
	return v.bytes(ctx, []byte(s), true)
}

func (v *VM) malloc(ctx context.Context, n uint32) (uint32, error) {
	p, err := v.call0(ctx, v.f.malloc, uint64(n))
	if err != nil {
		return 0, err
	}
	if p == 0 {
		return 0, fmt.Errorf("%w: malloc(%d) failed", ErrMemory, n)
	}
	return p, nil
}

func (v *VM) freePtr(ctx context.Context, p uint32) { _, _ = v.call0(ctx, v.f.free, uint64(p)) }

func (v *VM) freeValue(ctx context.Context, val uint32) {
	if val != 0 {
		_, _ = v.call0(ctx, v.f.freeValue, uint64(val))
	}
}

// call0 invokes fn with i32 params through the invoker and returns its first result.
func (v *VM) call0(ctx context.Context, fn api.Function, params ...uint64) (uint32, error) {
	if fn == nil {
		return 0, fmt.Errorf("%w: an export is missing", ErrEngine)
	}
	// A fresh stack per call: host functions re-enter the engine while an outer call runs.
	st := make([]uint64, max(len(params), len(fn.Definition().ResultTypes())))
	copy(st, params)
	if err := v.e.Invoke(ctx, fn, st); err != nil {
		return 0, err
	}
	if len(fn.Definition().ResultTypes()) == 0 {
		return 0, nil
	}
	return uint32(st[0]), nil
}

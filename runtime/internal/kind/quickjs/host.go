package quickjs

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	mrand "math/rand/v2"
	"strconv"
	"strings"
	"time"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/runtime/internal/kind"
	"github.com/tetratelabs/wazero/api"
)

// hostFuncName is the one host function the shim calls: __mcpwasm_host(op, payload).
const hostFuncName = "__mcpwasm_host"

// HostModuleName is the import module of the engine's host functions.
const HostModuleName = "env"

// Requester serves a capability request: *sandbox.Tool's Request (ABI.md §6.1).
type Requester interface {
	Request(ctx context.Context, kind string, body []byte) (abi.Status, []byte)
}

// Call is what a running entry may reach: installed with WithCall for each entry (and for
// Start, whose script's top level may log). Engine is required; every other field may be
// zero: nothing granted.
type Call struct {
	Engine   Engine                                        // the instance the host function was called from
	Sandbox  Requester                                     // nil: every request is UNAVAILABLE
	Env      []string                                      // NAME=value pairs (the env grant, resolved)
	Args     []string                                      // the guest's arguments (process.argv after the script)
	Clock    bool                                          // timers really wait (the clock grant)
	Random   bool                                          // crypto entropy for crypto and Math.random's seed (the random grant); else a fixed sequence
	Log      func(level, msg string)                       // console.* and logging notifications
	Progress func(progress, total float64, message string) // progress notifications
	// Interrupted reports that the call must end (the seam's Instance.Interrupted: deadline,
	// cancellation, stop). Nil: the end of the host function's context.
	Interrupted func() bool
	// Ending reports that the call is ending and will be interrupted after a grace period:
	// "cancelled" (the client cancelled it), "deadline" (its time limit is near) or "stopped"
	// (the operator's stop, the guest's close); "" while it runs on. The shim aborts the
	// entry's AbortSignal (extra.signal) with it. Nil: never told.
	Ending func() string
	// A whole server's process (Serve sets Now and Exit; the caller sets Stdout): Stdout
	// receives what the script writes to process.stdout; Now is the process's clock in ms
	// since it started (host op "now", its timers' base); Exit records process.exit(code).
	Stdout func(b []byte)
	Now    func() float64
	Exit   func(code int)

	rng  *mrand.ChaCha8 // the fixed sequence, without Random
	told bool           // VM.Run has aborted the running entry's signal: the script knows it is ending
}

type callKey struct{}

// WithCall returns ctx carrying c for the host functions of the engine it reaches.
func WithCall(ctx context.Context, c *Call) context.Context {
	return context.WithValue(ctx, callKey{}, c)
}

// CallFunc finds the running call of a host function (nil: none); the kind seam's lookup
// goes through kind.CallOf. The default reads WithCall's value.
type CallFunc func(ctx context.Context, mod api.Module) *Call

// HostFunc is one function of the engine's host module.
type HostFunc struct {
	Name            string
	Params, Results []api.ValueType
	Fn              api.GoModuleFunc
}

// HostFuncs returns the functions of the "env" module quickjs-wasi imports, each finding its
// call with find (nil: WithCall's value). host_call serves the shim's __mcpwasm_host;
// host_interrupt stops the script when the call's context ends; module loading is refused
// (a guest is one script); the time zone is UTC.
func HostFuncs(find CallFunc) []HostFunc {
	if find == nil {
		find = func(ctx context.Context, _ api.Module) *Call { return callOf(ctx) }
	}
	i32 := api.ValueTypeI32
	return []HostFunc{
		{"host_call", []api.ValueType{i32, i32, i32, i32, i32}, []api.ValueType{i32}, func(ctx context.Context, mod api.Module, st []uint64) {
			st[0] = uint64(hostCall(ctx, find(ctx, mod), uint32(st[3]), uint32(st[4])))
		}},
		{"host_interrupt", nil, []api.ValueType{i32}, func(ctx context.Context, mod api.Module, st []uint64) {
			st[0] = 0
			if find(ctx, mod).interrupted(ctx) {
				st[0] = 1
			}
		}},
		{"host_promise_rejection", []api.ValueType{i32, i32, i32}, nil, func(ctx context.Context, mod api.Module, st []uint64) {
			// Never enabled (qjs_set_promise_rejection_handler is not called); the values are
			// the host's to free if it is.
			free := mod.ExportedFunction("qjs_free_value")
			_, _ = free.Call(ctx, st[0])
			_, _ = free.Call(ctx, st[1])
		}},
		{"host_module_normalize", []api.ValueType{i32, i32}, []api.ValueType{i32}, func(_ context.Context, _ api.Module, st []uint64) {
			st[0] = 0 // NULL: import refused (the build bundles every module)
		}},
		{"host_module_load", []api.ValueType{i32, i32}, []api.ValueType{i32}, func(_ context.Context, _ api.Module, st []uint64) {
			st[0] = 0
		}},
		{"host_get_timezone_offset", []api.ValueType{i32, i32}, []api.ValueType{i32}, func(_ context.Context, _ api.Module, st []uint64) {
			st[0] = 0 // UTC
		}},
	}
}

// payloadCap is the cap of the payload of op (kind.CheckArg, before it is copied out of the
// engine): a request's JSON (its kind and a body of kind.MaxRequestBody), a report's JSON
// (kind.MaxReportJSON), or a small value.
func payloadCap(op string) uint64 {
	switch op {
	case "request":
		return kind.MaxRequestBody + kind.MaxRequestKind + 64
	case "log", "progress":
		return kind.MaxReportJSON
	case "stdout":
		return maxStdoutWrite
	}
	return kind.MaxSmallArg
}

// hostCall serves __mcpwasm_host(op, payload) and returns a JSValue* string: a refusal is
// data, as in ABI.md §6. Without a call (a module the host does not run) it returns 0, which
// the engine's trampoline treats as an exception.
func hostCall(ctx context.Context, c *Call, argc, argv uint32) uint32 {
	if c == nil || c.Engine == nil {
		return 0
	}
	v := &VM{e: c.Engine}
	v.bind()
	var args [2][]byte
	for i := range min(argc, 2) {
		p, ok := v.e.Memory().ReadUint32Le(argv + 4*i)
		if !ok {
			return v.answer(ctx, nil)
		}
		what, limit := "host op", uint64(kind.MaxRequestKind)
		if i == 1 {
			what, limit = string(args[0])+" payload", payloadCap(string(args[0]))
		}
		var err error
		if args[i], ok, err = v.argString(ctx, p, what, limit); err != nil {
			return v.refuse(ctx, c, string(args[0]), err)
		} else if !ok {
			return v.answer(ctx, nil)
		}
	}
	op, payload := string(args[0]), args[1]
	switch op {
	case "log":
		var m struct{ Level, Data string }
		if json.Unmarshal(payload, &m) == nil && c.Log != nil {
			c.Log(m.Level, m.Data)
		}
	case "progress":
		var m struct {
			Progress, Total float64
			Message         string
		}
		if json.Unmarshal(payload, &m) == nil && c.Progress != nil {
			c.Progress(m.Progress, m.Total, m.Message)
		}
	case "request":
		var m struct {
			Kind string
			Body json.RawMessage
		}
		var st abi.Status
		var body []byte
		switch {
		case json.Unmarshal(payload, &m) != nil:
			st, body = abi.StatusInvalid, errorBody("malformed request")
		case c.Sandbox == nil:
			st, body = abi.StatusUnavailable, errorBody(m.Kind+": request outside a tool call")
		default:
			if len(m.Body) == 0 {
				m.Body = json.RawMessage("{}")
			}
			st, body = c.Sandbox.Request(ctx, m.Kind, m.Body)
			if !json.Valid(body) {
				body, _ = json.Marshal(string(body))
			}
		}
		out := fmt.Appendf(nil, `{"status":%d,"body":`, st)
		out = append(append(out, body...), '}')
		return v.answer(ctx, out)
	case "sleep":
		ms, _ := strconv.ParseFloat(string(payload), 64)
		if c.Clock && ms > 0 && c.sleep(ctx, time.Duration(min(ms, float64(time.Hour/time.Millisecond))*float64(time.Millisecond))) {
			return v.answer(ctx, []byte("ending")) // cut short: the shim aborts before it fires
		}
	case "stdout":
		if c.Stdout != nil {
			c.Stdout(payload)
		}
	case "now":
		if c.Now != nil {
			return v.answer(ctx, strconv.AppendFloat(nil, c.Now(), 'f', 3, 64))
		}
	case "exit":
		if c.Exit != nil {
			n, _ := strconv.Atoi(string(payload))
			c.Exit(n)
		}
	case "ending":
		if c.Ending != nil {
			return v.answer(ctx, []byte(c.Ending()))
		}
	case "random":
		n, _ := strconv.Atoi(string(payload))
		b := make([]byte, max(0, min(n, 65536)))
		c.fillRandom(b)
		return v.answer(ctx, []byte(hex.EncodeToString(b)))
	case "argv":
		b, _ := json.Marshal(append([]string{}, c.Args...))
		return v.answer(ctx, b)
	case "env":
		m := map[string]string{}
		for _, kv := range c.Env {
			k, val, _ := strings.Cut(kv, "=")
			m[k] = val
		}
		b, _ := json.Marshal(m)
		return v.answer(ctx, b)
	}
	return v.answer(ctx, nil)
}

// maxStdoutWrite caps one write of a whole server's process.stdout (one JSON-RPC message, as
// the SDK's stdio transport writes): 16 MiB.
const maxStdoutWrite = 16 << 20

// sleepSlice bounds one wait of sleep between checks of Interrupted (the seam keeps a call's
// deadline in the instance's interrupter, not in ctx).
const sleepSlice = 10 * time.Millisecond

// interrupted reports whether the running call must end now: c.Interrupted, or without it
// (or without a call) the end of ctx.
func (c *Call) interrupted(ctx context.Context) bool {
	if c == nil || c.Interrupted == nil {
		return ctx.Err() != nil
	}
	return c.Interrupted()
}

// sleep waits d, or less if the call is interrupted or, while the script has not been told
// it is ending (c.told, which VM.Run records when it aborts the signal), the call is ending:
// then it reports true, cut short so that the script hears of it. Whether the script was told
// is the script's record, not the host's: an ending that lands after Run last asked but
// before this wait began cuts it at once; one the script already heard does not.
func (c *Call) sleep(ctx context.Context, d time.Duration) (cut bool) {
	ending := func() bool { return c.Ending != nil && c.Ending() != "" }
	end := time.Now().Add(d)
	for {
		left := time.Until(end)
		if left <= 0 || c.interrupted(ctx) {
			return false
		}
		if !c.told && ending() {
			return true
		}
		t := time.NewTimer(min(left, sleepSlice))
		if c.Interrupted != nil { // the seam: ctx's end is the interrupter's to judge
			<-t.C
			continue
		}
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return false
		}
	}
}

// fillRandom fills b with the call's randomness: crypto entropy with the random grant
// (Random), else fixedRandom's sequence. Every random value a script reads comes from here —
// crypto.getRandomValues, crypto.randomUUID, and Math.random's seed at start (seedFromCall).
func (c *Call) fillRandom(b []byte) {
	if c.Random {
		_, _ = rand.Read(b)
		return
	}
	c.fixedRandom(b)
}

// callOf returns ctx's Call (WithCall), or nil.
func callOf(ctx context.Context) *Call {
	c, _ := ctx.Value(callKey{}).(*Call)
	return c
}

// fixedRandom fills b from a sequence that starts again with every call: without the random
// grant, randomness is deterministic (as WASI random_get is under sandbox.Profile).
func (c *Call) fixedRandom(b []byte) {
	if c.rng == nil {
		c.rng = mrand.NewChaCha8([32]byte{'m', 'c', 'p', 'w', 'a', 's', 'm'})
	}
	src := c.rng
	for i := 0; i < len(b); i += 8 {
		var w [8]byte
		binary.LittleEndian.PutUint64(w[:], src.Uint64())
		copy(b[i:], w[:])
	}
}

func errorBody(msg string) []byte {
	b, _ := json.Marshal(abi.ErrorBody{Error: msg})
	return b
}

// bind resolves the exports a host function needs (a VM view of the calling instance; the
// seam's Instance.Func caches them per instance).
func (v *VM) bind() {
	f, e := &v.f, v.e
	f.malloc, f.free = e.Func("malloc"), e.Func("free")
	f.newString, f.getString = e.Func("qjs_new_string"), e.Func("qjs_get_string_len")
	f.freeCString, f.isException = e.Func("qjs_free_cstring"), e.Func("qjs_is_exception")
}

// argString reads a JS string argument (JSValue* val) without running script code: only
// strings are read (the shim passes strings).
func (v *VM) argString(ctx context.Context, val uint32, what string, limit uint64) ([]byte, bool, error) {
	lenp, err := v.malloc(ctx, 4)
	if err != nil {
		return nil, false, nil
	}
	defer v.freePtr(ctx, lenp)
	c, err := v.call0(ctx, v.f.getString, uint64(val), uint64(lenp))
	if err != nil || c == 0 {
		return nil, false, nil
	}
	defer func() { _, _ = v.call0(ctx, v.f.freeCString, uint64(c)) }()
	n, ok := v.e.Memory().ReadUint32Le(lenp)
	if !ok {
		return nil, false, nil
	}
	if err := kind.CheckArg(what, uint64(n), limit); err != nil {
		return nil, false, err // nothing copied
	}
	b, ok := v.e.Memory().Read(c, n)
	if !ok {
		return nil, false, nil
	}
	return append([]byte(nil), b...), true, nil
}

// refuse answers a host call whose argument is over its cap (kind.CheckArg), having copied
// none of it: a request gets TOO_LARGE naming the cap, as a refusal is data (ABI.md §6); a
// log or progress report is dropped with a warning naming it; any other op gets nothing.
func (v *VM) refuse(ctx context.Context, c *Call, op string, err error) uint32 {
	switch op {
	case "request":
		body, _ := json.Marshal(map[string]string{"error": "request: " + err.Error()})
		return v.answer(ctx, fmt.Appendf(nil, `{"status":%d,"body":%s}`, abi.StatusTooLarge, body))
	case "log", "progress":
		if c.Log != nil {
			c.Log("warning", op+" dropped: "+err.Error())
		}
	}
	return v.answer(ctx, nil)
}

// answer returns s as a new JS string (JSValue*) for the trampoline to own; 0 (an exception)
// only if the engine cannot allocate it.
func (v *VM) answer(ctx context.Context, s []byte) uint32 {
	p, err := v.bytes(ctx, s, true)
	if err != nil {
		return 0
	}
	defer v.freePtr(ctx, p)
	val, err := v.call0(ctx, v.f.newString, uint64(p), uint64(len(s)))
	if err != nil {
		return 0
	}
	return val
}

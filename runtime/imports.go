package runtime

import (
	"context"
	"fmt"
	"math"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/internal/size"
	"github.com/mcpwasm/mcpwasm/runtime/internal/sandbox"
	"github.com/mcpwasm/mcpwasm/runtime/peer"
	"github.com/tetratelabs/wazero/api"
)

// CallHooks receive what a running guest reports through its host imports. Any field may be
// nil. Hooks run synchronously on the calling goroutine while the guest waits, so they must
// return quickly; they may be called concurrently for different calls.
type CallHooks struct {
	// Log receives a log line (level RFC 5424, 0 debug … 7 emergency).
	Log func(level abi.Level, msg string)
	// Progress receives a progress report; total <= 0 means unknown.
	Progress func(progress, total float64, msg string)
	// Client serves the guest's requests to the MCP client of this call (request kinds
	// sampling, elicitation, roots; ABI.md §6.7) once the sandbox has checked the grant. Nil:
	// such requests answer UNAVAILABLE. Unlike Log and Progress, Client.Request may block
	// until the client answers (bounded by ctx, the call's deadline and cancellation).
	Client peer.Client
	// ResourceUpdated receives the URI of a resource the guest reported changed (request
	// kind resource.updated, ABI.md §6.8); the URI is one the guest serves.
	ResourceUpdated func(uri string)
}

type hooksKey struct{}

// WithCallHooks returns a context that makes Guest.Call deliver the guest's log and progress
// reports to hooks.
func WithCallHooks(ctx context.Context, hooks *CallHooks) context.Context {
	return context.WithValue(ctx, hooksKey{}, hooks)
}

func hooksFrom(ctx context.Context) *CallHooks {
	h, _ := ctx.Value(hooksKey{}).(*CallHooks)
	return h
}

// maxImportMessage caps a log or progress message copied out of the guest, in bytes.
const maxImportMessage = 64 << 10

func (h *Host) instanceOf(mod api.Module) *instance {
	v, ok := h.instances.Load(mod)
	if !ok {
		return nil
	}
	return v.(*instance)
}

func (h *Host) hostLog(ctx context.Context, mod api.Module, stack []uint64) {
	level, ptr, n := abi.Level(int32(stack[0])), uint32(stack[1]), uint32(stack[2])
	if level.String() == "" {
		stack[0] = statusResult(abi.StatusInvalid)
		return
	}
	inst, msg, st := h.report(mod, ptr, n)
	if st != abi.StatusOK {
		stack[0] = statusResult(st)
		return
	}
	h.logger.Log(ctx, slogLevel(level), "guest log", "guest", inst.g.name, "tool", inst.tool, "level", level.String(), "msg", msg)
	if hk := hooksFrom(ctx); hk != nil && hk.Log != nil {
		hk.Log(level, msg)
	}
	stack[0] = statusResult(abi.StatusOK)
}

func (h *Host) hostProgress(ctx context.Context, mod api.Module, stack []uint64) {
	progress, total := api.DecodeF64(stack[0]), api.DecodeF64(stack[1])
	_, msg, st := h.report(mod, uint32(stack[2]), uint32(stack[3]))
	if st == abi.StatusOK && (math.IsNaN(progress) || math.IsInf(progress, 0) || math.IsNaN(total) || math.IsInf(total, 0)) {
		st = abi.StatusInvalid
	}
	if st != abi.StatusOK {
		stack[0] = statusResult(st)
		return
	}
	if hk := hooksFrom(ctx); hk != nil && hk.Progress != nil {
		hk.Progress(progress, total, msg)
	}
	stack[0] = statusResult(abi.StatusOK)
}

// report admits one log or progress report of n bytes at ptr within the call's budget
// (hostcaps.go) and reads its message: the instance and the message, or the status to answer.
func (h *Host) report(mod api.Module, ptr, n uint32) (*instance, string, abi.Status) {
	inst := h.instanceOf(mod)
	if inst == nil {
		return nil, "", abi.StatusUnavailable
	}
	if !inst.admitReport(n) {
		return nil, "", abi.StatusTooLarge
	}
	msg, ok := readString(mod, ptr, min(n, maxImportMessage))
	if !ok {
		return nil, "", abi.StatusInvalid
	}
	return inst, msg, abi.StatusOK
}

func (h *Host) hostCancelled(ctx context.Context, mod api.Module, stack []uint64) {
	// The call's deadline is not in ctx (epoch.go): the interrupter knows it.
	if inst := h.instanceOf(mod); ctx.Err() != nil || (inst != nil && inst.intr.interrupted() != 0) {
		stack[0] = 1
	} else {
		stack[0] = 0
	}
}

func (h *Host) hostRequest(ctx context.Context, mod api.Module, stack []uint64) {
	kindPtr, kindLen, reqPtr, reqLen := uint32(stack[0]), uint32(stack[1]), uint32(stack[2]), uint32(stack[3])
	inst := h.instanceOf(mod)
	if inst == nil {
		stack[0] = abi.Pack(uint32(abi.StatusUnavailable), 0)
		return
	}
	var st abi.Status
	var body []byte
	// Sizes are checked before anything is copied: the kind is copied into a string, and an
	// unknown kind is quoted back in the error.
	if kindLen > maxRequestKind || reqLen > maxRequestBody {
		st, body = abi.StatusTooLarge, sandbox.ErrorBody(fmt.Sprintf(
			"request: kind of %d bytes or body of %d bytes is over the caps (%d bytes, %s)",
			kindLen, reqLen, maxRequestKind, size.Format(maxRequestBody)))
		inst.pending = body
		stack[0] = abi.Pack(uint32(st), uint32(len(body)))
		return
	}
	kind, ok1 := readString(mod, kindPtr, kindLen)
	req, ok2 := mod.Memory().Read(reqPtr, reqLen)
	switch {
	case !ok1 || !ok2:
		st, body = abi.StatusInvalid, sandbox.ErrorBody("request: pointer/length outside linear memory")
	default:
		end := h.observeRequest(ctx, inst, kind)    // observe.go
		rctx, done := inst.intr.requestContext(ctx) // also cancelled by Stop and Close
		st, body = inst.request(rctx, kind, req)
		done()
		if end != nil {
			end(st)
		}
		if sandbox.IsInputRequired(st, body) {
			// The client's answer comes in a later round (ABI.md §6.7, mechanism 2): end the
			// call here. wazero turns the panic into the call's error (wrapping the value),
			// and the instance is discarded like after a trap.
			panic(peer.ErrInputRequired)
		}
	}
	inst.pending = body
	stack[0] = abi.Pack(uint32(st), uint32(len(body)))
}

func (h *Host) hostResponse(ctx context.Context, mod api.Module, stack []uint64) {
	ptr, n := uint32(stack[0]), uint32(stack[1])
	inst := h.instanceOf(mod)
	if inst == nil || inst.pending == nil {
		stack[0] = statusResult(-abi.StatusUnavailable)
		return
	}
	if int(n) < len(inst.pending) {
		stack[0] = statusResult(-abi.StatusTooLarge)
		return
	}
	if !mod.Memory().Write(ptr, inst.pending) {
		stack[0] = statusResult(-abi.StatusInvalid)
		return
	}
	stack[0] = uint64(uint32(int32(len(inst.pending))))
	inst.pending = nil
}

func statusResult(s abi.Status) uint64 { return uint64(uint32(int32(s))) }

func readString(mod api.Module, ptr, n uint32) (string, bool) {
	if n == 0 {
		return "", true
	}
	b, ok := mod.Memory().Read(ptr, n)
	if !ok {
		return "", false
	}
	return string(b), true
}

// request serves one request import call (ABI.md §6.1) through the sandbox of the tool the
// instance is running. A prompt gets the client request kinds its guest was granted
// (sandbox.PromptGrants); resource reads, completions and describe run no tool: they get
// nothing.
func (inst *instance) request(ctx context.Context, kind string, req []byte) (abi.Status, []byte) {
	var sb *sandbox.Tool
	if t, ok := inst.g.tools[inst.tool]; ok {
		if kind == abi.KindResourceUpdated { // no grant: the guest's own resources (resources.go)
			return inst.g.resourceUpdated(ctx, inst, req)
		}
		sb = t.sandbox
	} else if inst.prompt && inst.g.prompts != nil && kind != abi.KindResourceUpdated {
		sb = inst.g.prompts // the client request kinds only (sandbox.PromptGrants)
	} else {
		return abi.StatusUnavailable, sandbox.ErrorBody("request outside a tool call")
	}
	if hk := hooksFrom(ctx); hk != nil && hk.Client != nil {
		ctx = sandbox.WithClient(ctx, hk.Client)
	}
	return sb.Request(ctx, kind, req)
}

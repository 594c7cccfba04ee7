package mcpwasm

import (
	"context"
	"math"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/runtime/internal/kind"
	"github.com/mcpwasm/mcpwasm/runtime/internal/sandbox"
	"github.com/mcpwasm/mcpwasm/runtime/peer"
	"github.com/tetratelabs/wazero/api"
)

// The host functions of mcpwasm_v1 (ABI.md §6). Each finds its call with kind.CallOf and
// reaches the outside only through it.

func hostLog(ctx context.Context, mod api.Module, stack []uint64) {
	level, ptr, n := abi.Level(int32(stack[0])), uint32(stack[1]), uint32(stack[2])
	if level.String() == "" {
		stack[0] = statusResult(abi.StatusInvalid)
		return
	}
	c, msg, st := report(ctx, mod, ptr, n)
	if st == abi.StatusOK {
		c.Host.Log(ctx, c, level, msg)
	}
	stack[0] = statusResult(st)
}

func hostProgress(ctx context.Context, mod api.Module, stack []uint64) {
	progress, total := api.DecodeF64(stack[0]), api.DecodeF64(stack[1])
	c, msg, st := report(ctx, mod, uint32(stack[2]), uint32(stack[3]))
	if st == abi.StatusOK && (math.IsNaN(progress) || math.IsInf(progress, 0) || math.IsNaN(total) || math.IsInf(total, 0)) {
		st = abi.StatusInvalid
	}
	if st == abi.StatusOK {
		c.Host.Progress(ctx, c, progress, total, msg)
	}
	stack[0] = statusResult(st)
}

// report admits one log or progress report of n bytes at ptr within the call's budget and
// reads its message: the call and the message, or the status to answer.
func report(ctx context.Context, mod api.Module, ptr, n uint32) (*kind.Call, string, abi.Status) {
	c := kind.CallOf(ctx, mod)
	if c == nil || c.Started == nil { // not started: no call to report to
		return nil, "", abi.StatusUnavailable
	}
	if !c.Report.Admit(n) {
		return nil, "", abi.StatusTooLarge
	}
	msg, ok := readString(mod, ptr, min(n, kind.MaxReportMessage))
	if !ok {
		return nil, "", abi.StatusInvalid
	}
	return c, msg, abi.StatusOK
}

func hostCancelled(ctx context.Context, mod api.Module, stack []uint64) {
	// The call's deadline is not in ctx: the instance's interrupter knows it.
	if c := kind.CallOf(ctx, mod); ctx.Err() != nil || (c != nil && c.Instance.Interrupted()) {
		stack[0] = 1
	} else {
		stack[0] = 0
	}
}

func hostRequest(ctx context.Context, mod api.Module, stack []uint64) {
	kindPtr, kindLen, reqPtr, reqLen := uint32(stack[0]), uint32(stack[1]), uint32(stack[2]), uint32(stack[3])
	c := kind.CallOf(ctx, mod)
	s, _ := startedOf(c)
	if s == nil {
		if c != nil && c.StartRequest == "" { // the start asked: its instance is not snapshotted
			c.StartRequest, _ = readString(mod, kindPtr, min(kindLen, kind.MaxRequestKind))
			if c.StartRequest == "" {
				c.StartRequest = "(unreadable kind)"
			}
		}
		stack[0] = abi.Pack(uint32(abi.StatusUnavailable), 0)
		return
	}
	var st abi.Status
	var body []byte
	// Sizes are checked before anything is copied: the kind is copied into a string, and an
	// unknown kind is quoted back in the error.
	err := kind.CheckArg("request kind", uint64(kindLen), kind.MaxRequestKind)
	if err == nil {
		err = kind.CheckArg("request body", uint64(reqLen), kind.MaxRequestBody)
	}
	if err != nil {
		st, body = abi.StatusTooLarge, sandbox.ErrorBody("request: "+err.Error())
		s.pending = body
		stack[0] = abi.Pack(uint32(st), uint32(len(body)))
		return
	}
	rkind, ok1 := readString(mod, kindPtr, kindLen)
	req, ok2 := mod.Memory().Read(reqPtr, reqLen)
	switch {
	case !ok1 || !ok2:
		st, body = abi.StatusInvalid, sandbox.ErrorBody("request: pointer/length outside linear memory")
	default:
		st, body = c.Request(ctx, rkind, req)
		if sandbox.IsInputRequired(st, body) {
			// The client's answer comes in a later round (ABI.md §6.7, mechanism 2): end the
			// call here. wazero turns the panic into the call's error (wrapping the value),
			// and the instance is discarded like after a trap.
			panic(peer.ErrInputRequired)
		}
	}
	s.pending = body
	stack[0] = abi.Pack(uint32(st), uint32(len(body)))
}

func hostResponse(ctx context.Context, mod api.Module, stack []uint64) {
	ptr, n := uint32(stack[0]), uint32(stack[1])
	s, _ := startedOf(kind.CallOf(ctx, mod))
	if s == nil || s.pending == nil {
		stack[0] = statusResult(-abi.StatusUnavailable)
		return
	}
	if int(n) < len(s.pending) {
		stack[0] = statusResult(-abi.StatusTooLarge)
		return
	}
	if !mod.Memory().Write(ptr, s.pending) {
		stack[0] = statusResult(-abi.StatusInvalid)
		return
	}
	stack[0] = uint64(uint32(int32(len(s.pending))))
	s.pending = nil
}

// startedOf returns the mcpwasm state of c's instance; nil before Start returned.
func startedOf(c *kind.Call) (*started, bool) {
	if c == nil {
		return nil, false
	}
	s, ok := c.Started.(*started)
	return s, ok
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

package quickjs

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"time"
)

// A whole server: a script that carries its own MCP SDK (TS SDK v2 @modelcontextprotocol/server
// and its stdio transport, or v1's) runs as a process. build.mjs --server marks it with the
// custom section ServerSectionName and writes globalThis.__mcpwasm.process, which makes the
// shim give it process.stdin and process.stdout as Node-style streams and timers that fire at
// real time. Serve is its pump: it evaluates the script, then, turn by turn, hands each chunk
// of stdin to the script (__mcpwasm.stdin), fires each due timer (__mcpwasm.tick) and runs the
// engine's job queue after each, and passes what the script writes to stdout (host op
// "stdout") to Call.Stdout. Between turns the engine is idle and the pump waits for the next
// input or the next timer, whichever comes first: a server that notifies from a timer
// outside any request does so. RATIONALE.md, "Whole MCP servers", says why.

// ServerSectionName is the custom section build.mjs --server adds to a whole-server script
// (its payload is "1"): the module is served as a process (Serve), not through the shim's
// entries.
const ServerSectionName = "mcpwasm.jsserver"

// IsServer reports whether module (a quickjs-wasi engine with a script) is a whole server: it
// has a custom section ServerSectionName. It walks the section headers only.
func IsServer(module []byte) bool {
	if len(module) < 8 || string(module[:4]) != "\x00asm" {
		return false
	}
	for i := 8; i < len(module); {
		id := module[i]
		size, n := uleb(module[i+1:])
		if n == 0 || uint64(len(module)-i-1-n) < size {
			return false
		}
		body := module[i+1+n : i+1+n+int(size)]
		i += 1 + n + int(size)
		if id != 0 {
			continue
		}
		nl, m := uleb(body)
		if m == 0 || uint64(len(body)-m) < nl {
			return false
		}
		if string(body[m:m+int(nl)]) == ServerSectionName {
			return true
		}
	}
	return false
}

// ExitError is Serve's error when the script ended the process: process.exit(Code), or its
// stdin ended (Code 0, as Node exits when the stdio transport closes).
type ExitError struct{ Code int }

func (e *ExitError) Error() string { return fmt.Sprintf("exit code %d", e.Code) }

// ErrTurn wraps Serve's error when one turn (a chunk of stdin, a timer, or the script's top
// level, with the promise jobs each queues) ran longer than ServeConfig.TurnLimit.
var ErrTurn = errors.New("a turn of the script exceeded its time limit")

// ServeConfig is how Serve drives a whole-server script.
type ServeConfig struct {
	// Stdin is the process's standard input (MCP's JSON-RPC lines). Its end ends the process
	// (ExitError{0}) once the script has heard it.
	Stdin io.Reader
	// Since is the process's clock for its timers: the time since it started.
	Since func() time.Duration
	// TurnLimit bounds each turn (0: none); the engine is interrupted at it and Serve fails
	// wrapping ErrTurn and ErrInterrupted.
	TurnLimit time.Duration
	// MemoryLimit is the engine's heap limit in bytes (0: none).
	MemoryLimit uint64
}

// Serve runs the whole-server script code in the engine e until its stdin ends, it calls
// process.exit, a turn fails (interrupted, out of memory, over TurnLimit) or ctx ends. c is
// the process's Call for every turn: its Stdout receives what the script writes to
// process.stdout, its Log the script's console and stderr; Serve sets its Engine, Interrupted
// (ctx's end or the running turn's limit), Now and Exit. The script's top level may leave a
// promise pending (a server awaits its transport); a top level that throws is ErrScript.
func Serve(ctx context.Context, e Engine, code Code, c *Call, cfg ServeConfig) error {
	var deadline time.Time
	exit := -1
	c.Engine = e
	c.Interrupted = func() bool {
		return ctx.Err() != nil || (!deadline.IsZero() && time.Now().After(deadline))
	}
	c.Now = func() float64 { return float64(cfg.Since()) / float64(time.Millisecond) }
	c.Exit = func(code int) {
		if exit < 0 {
			exit = code
		}
	}
	cctx := WithCall(ctx, c)
	arm := func() {
		if cfg.TurnLimit > 0 {
			deadline = time.Now().Add(cfg.TurnLimit)
		}
	}
	turnErr := func(err error) error {
		if errors.Is(err, ErrInterrupted) && ctx.Err() == nil && !deadline.IsZero() && time.Now().After(deadline) {
			return fmt.Errorf("%w (%s): %w", ErrTurn, cfg.TurnLimit, err)
		}
		return err
	}
	arm()
	v, err := startScript(cctx, e, code, cfg.MemoryLimit, true)
	if err != nil {
		return turnErr(err)
	}
	var fns [3]uint32
	for i, name := range []string{"stdin", "end", "tick"} {
		if fns[i], err = v.prop(cctx, v.mcp, name); err != nil {
			return err
		}
	}
	stdinFn, endFn, tickFn := fns[0], fns[1], fns[2]

	// The reader: chunks of stdin, in order; closed at its end.
	in := make(chan []byte)
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		defer close(in)
		buf := make([]byte, 64<<10)
		for {
			n, err := cfg.Stdin.Read(buf)
			if n > 0 {
				select {
				case in <- append([]byte(nil), buf[:n]...):
				case <-stop:
					return
				}
			}
			if err != nil {
				return
			}
		}
	}()
	turn := func(fn uint32, arg []byte) (string, error) {
		arm()
		out, err := v.callJS(cctx, fn, arg)
		if err == nil {
			err = v.runJobs(cctx)
		}
		if err != nil {
			return "", turnErr(err)
		}
		deadline = time.Time{}
		if err := v.checkTop(cctx); err != nil {
			return "", err
		}
		return string(out), nil
	}
	ms := func() []byte { return strconv.AppendFloat(nil, c.Now(), 'f', 3, 64) }
	for {
		if exit >= 0 {
			return &ExitError{Code: exit}
		}
		// Fire what is due, one timer a turn, then learn when the next is.
		wait := time.Duration(-1)
		for {
			out, err := turn(tickFn, ms())
			if err != nil {
				return err
			}
			if exit >= 0 {
				return &ExitError{Code: exit}
			}
			if out == "0" {
				if ctx.Err() != nil {
					return ctx.Err()
				}
				continue
			}
			if out != "" {
				d, _ := strconv.ParseFloat(out, 64)
				wait = time.Duration(d * float64(time.Millisecond))
			}
			break
		}
		var timer <-chan time.Time
		var t *time.Timer
		if wait >= 0 {
			t = time.NewTimer(wait)
			timer = t.C
		}
		chunk, ok, woke := []byte(nil), false, ""
		select {
		case chunk, ok = <-in:
			woke = "stdin"
		case <-timer:
		case <-ctx.Done():
			woke = "ctx"
		}
		if t != nil {
			t.Stop()
		}
		switch woke {
		case "ctx":
			return context.Cause(ctx)
		case "stdin":
			if !ok {
				if _, err := turn(endFn, nil); err != nil {
					return err
				}
				if exit >= 0 {
					return &ExitError{Code: exit}
				}
				return &ExitError{Code: 0}
			}
			if _, err := turn(stdinFn, chunk); err != nil {
				return err
			}
		}
	}
}

// checkTop fails with ErrScript once a process's pending top level (VM.top) has rejected: a
// server whose start failed after an await (Node prints it and exits with code 1).
func (v *VM) checkTop(ctx context.Context) error {
	if v.top == 0 {
		return nil
	}
	state, err := v.call0(ctx, v.f.promiseState, uint64(v.top))
	if err != nil {
		return err
	}
	switch state {
	case 0:
		return nil
	case 2:
		reason, _ := v.call0(ctx, v.f.promiseResult, uint64(v.top))
		msg := v.describeError(ctx, reason)
		v.freeValue(ctx, reason)
		v.freeValue(ctx, v.top)
		v.top = 0
		return fmt.Errorf("%w: %s", ErrScript, msg)
	}
	v.freeValue(ctx, v.top)
	v.top = 0
	return nil
}

package quickjs

import (
	"context"
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"strings"
)

// A started VM's instance may be copied (runtime/internal/engine/snapshot.go: its linear memory and
// __stack_pointer, right after Start) into a fresh instance of the same engine, which Restore
// then drives without evaluating the script again: everything Start made — the runtime, the
// context, the shim, the bundle's module, the host function — lives in linear memory, and the
// VM holds only addresses into it, the same in the copy.
//
// One piece of that state must not be the same in every copy: QuickJS seeds Math.random once,
// from the clock, when it creates the context (an xorshift64* state in the context). A copy
// would give every instance the first one's sequence. So Start finds where the context keeps
// that state, and Restore writes a new one, drawn from the new instance's own clocks (WASI,
// so the sandbox's: with the clock grant the wall and monotonic time, which differ between
// instances; without it the sandbox's fixed clock, so the sequence is fixed, as it is in
// every fresh instance then).
//
// The same address serves the random grant: with it, Start overwrites the clock's seed with
// one drawn from the grant before the script runs (seedFromCall), and Restore draws the new
// one from it too. A guest may have the random grant without the clock grant, whose fixed
// clock would otherwise give the script's top level the same numbers in every instance.

// seedOffset is where QuickJS-NG's JSContext keeps random_state in quickjs-wasi 3.7.0's
// engine (EngineSHA256). Start checks it before relying on it (findSeed): another engine
// build, whose context is laid out differently, is not snapshotted.
const seedOffset = 280

// State is what Start learned of an instance besides its memory: addresses in it, valid in a
// copy of that memory.
type State struct {
	scratch, global, mcp, dispatch, poll, abort uint32
	seed, clock                                 uint32
}

// State returns what Restore needs to drive a copy of v's instance.
func (v *VM) State() State {
	return State{scratch: v.scratch, global: v.global, mcp: v.mcp, dispatch: v.dispatch, poll: v.poll, abort: v.abort, seed: v.seed, clock: v.clock}
}

// Restorable reports whether a copy of the instance can be given its own Math.random seed
// (Start found the state in the context); if not, the instance must not be copied.
func (s State) Restorable() bool { return s.seed != 0 && s.clock != 0 }

// Restore returns the VM of e, a fresh instance of the engine (its _initialize not run) whose
// linear memory and globals were overwritten with a copy of those of an instance right after
// Start returned st's VM. It runs no script code but the clock read for the new seed.
func Restore(ctx context.Context, e Engine, st State) (*VM, error) {
	if !st.Restorable() {
		return nil, fmt.Errorf("%w: the instance's Math.random state was not found; it cannot be copied", ErrEngine)
	}
	v, err := newVM(e)
	if err != nil {
		return nil, err
	}
	v.scratch, v.global, v.mcp, v.dispatch, v.poll, v.abort = st.scratch, st.global, st.mcp, st.dispatch, st.poll, st.abort
	v.seed, v.clock = st.seed, st.clock
	if err := v.reseed(ctx); err != nil {
		return nil, err
	}
	return v, nil
}

// reseed writes a new Math.random state: drawn from the random grant of ctx's Call if it
// grants it (seedFromCall), else derived from the instance's clocks.
func (v *VM) reseed(ctx context.Context) error {
	if c := callOf(ctx); c != nil && c.Random {
		return v.seedFromCall(ctx)
	}
	now, err := v.callJS(ctx, v.clock)
	if err != nil {
		return fmt.Errorf("reading the clock for Math.random's seed: %w", err)
	}
	h := fnv.New64a()
	h.Write(now)
	return v.writeSeed(mix64(h.Sum64()))
}

// seedFromCall gives Math.random a seed drawn from the random grant of ctx's Call (WithCall),
// if it grants it; else it leaves the state as it is. QuickJS seeds Math.random from the
// clock when it makes the context, and a guest may have the random grant without the clock
// grant (the build infers random, not clock, from Math.random), whose sandbox clock is
// fixed: every instance's start would draw the same numbers. An engine whose state findSeed
// did not find keeps its own seed (its instances are not copied either).
func (v *VM) seedFromCall(ctx context.Context) error {
	c := callOf(ctx)
	if c == nil || !c.Random || v.seed == 0 {
		return nil
	}
	var b [8]byte
	c.fillRandom(b[:])
	return v.writeSeed(binary.LittleEndian.Uint64(b[:]))
}

// writeSeed sets Math.random's state to seed (1 for 0: xorshift's state must not be zero).
func (v *VM) writeSeed(seed uint64) error {
	if seed == 0 {
		seed = 1
	}
	if !v.e.Memory().WriteUint64Le(v.seed, seed) {
		return fmt.Errorf("%w: Math.random's state is outside memory", ErrEngine)
	}
	return nil
}

// mix64 is splitmix64's finalizer: nearby clock readings give unrelated seeds. The hash is
// fixed, so that without the clock grant Math.random is the same sequence in every instance
// and every run.
func mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	return x ^ x>>31
}

// findSeed checks, right after qjs_init, that the 8 bytes at seedOffset in the context are
// Math.random's state — a draw changes them, and putting them back repeats the draw — and
// leaves them as they were; then it makes the clock function reseed calls. If the check
// fails v.seed stays 0: the VM works, but its instance is not copied.
func (v *VM) findSeed(ctx context.Context) error {
	cp := v.e.Func("qjs_get_context_ptr")
	if cp == nil {
		return nil
	}
	c, err := v.call0(ctx, cp)
	if err != nil || c == 0 {
		return err
	}
	at := c + seedOffset
	mem := v.e.Memory()
	s0, ok := mem.ReadUint64Le(at)
	if !ok || s0 == 0 {
		return nil
	}
	draw := func() (string, uint64, error) {
		out, err := v.evalString(ctx, "String(Math.random())")
		s, _ := mem.ReadUint64Le(at)
		return out, s, err
	}
	r1, s1, err := draw()
	if err != nil {
		return err
	}
	mem.WriteUint64Le(at, s0)
	r2, s2, err := draw()
	if err != nil {
		return err
	}
	mem.WriteUint64Le(at, s0)
	if s1 == s0 || r1 != r2 || s1 != s2 {
		return nil
	}
	clock, err := v.evalValue(ctx, `() => Date.now() + " " + (typeof performance === "object" ? performance.now() : 0)`)
	if err != nil {
		return err
	}
	v.seed, v.clock = at, clock
	return nil
}

// evalValue evaluates src as a global script and returns its value (a new JSValue*).
func (v *VM) evalValue(ctx context.Context, src string) (uint32, error) {
	p, err := v.bytes(ctx, []byte(src), true)
	if err != nil {
		return 0, err
	}
	defer v.freePtr(ctx, p)
	file, err := v.cstring(ctx, "<mcpwasm>")
	if err != nil {
		return 0, err
	}
	defer v.freePtr(ctx, file)
	res, err := v.call0(ctx, v.f.eval, uint64(p), uint64(len(src)), uint64(file), 0)
	if err != nil {
		return 0, err
	}
	if err := v.checkException(ctx, res, "evaluating "+strings.SplitN(src, "(", 2)[0]); err != nil {
		return 0, err
	}
	return res, nil
}

// evalString evaluates src as a global script and returns its value as a string.
func (v *VM) evalString(ctx context.Context, src string) (string, error) {
	res, err := v.evalValue(ctx, src)
	if err != nil {
		return "", err
	}
	defer v.freeValue(ctx, res)
	b, err := v.toString(ctx, res)
	return string(b), err
}

// stateFormat names State's encoding and what Start leaves in memory (findSeed's evals): a
// snapshot file written by a build with another one is not used (kind.Traits.StateFormat).
const stateFormat = "quickjs-state-2 engine " + EngineSHA256

// stateWords is the number of uint32s an encoded State holds.
const stateWords = 8

// EncodeState is the kind's Traits.EncodeState: State as little-endian uint32s.
func (Kind) EncodeState(state any) ([]byte, error) {
	st, ok := state.(State)
	if !ok {
		return nil, fmt.Errorf("%w: not a JavaScript engine's snapshot (%T)", ErrEngine, state)
	}
	b := make([]byte, 0, 4*stateWords)
	for _, w := range []uint32{st.scratch, st.global, st.mcp, st.dispatch, st.poll, st.abort, st.seed, st.clock} {
		b = binary.LittleEndian.AppendUint32(b, w)
	}
	return b, nil
}

// DecodeState is the kind's Traits.DecodeState: EncodeState's inverse; a State that is not
// Restorable is refused.
func (Kind) DecodeState(b []byte) (any, error) {
	if len(b) != 4*stateWords {
		return nil, fmt.Errorf("%w: a state of %d bytes, want %d", ErrEngine, len(b), 4*stateWords)
	}
	w := func(i int) uint32 { return binary.LittleEndian.Uint32(b[4*i:]) }
	st := State{scratch: w(0), global: w(1), mcp: w(2), dispatch: w(3), poll: w(4), abort: w(5), seed: w(6), clock: w(7)}
	if !st.Restorable() {
		return nil, fmt.Errorf("%w: a state without Math.random's address", ErrEngine)
	}
	return st, nil
}

// StateFormat is the kind's Traits.StateFormat.
func (Kind) StateFormat() string { return stateFormat }

package runtime

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
)

// Why rewrite modules at all: see RATIONALE.md, "Why rewrite function bodies: fuel checks,
// not WithCloseOnContextDone?".
//
// instrumentCalls gives the module two mutable i32 globals of its own, $fuel and $flag, and a
// function $slow, and puts a check at every function entry and every loop header:
//
//	global.get $fuel  i32.const 1  i32.sub  global.set $fuel
//	global.get $fuel  i32.eqz  if  call $slow  end
//
// Every checkInterval checks, $slow refills $fuel, makes one trip into Go (memory.grow 0,
// which wazero serves in Go: a point where the goroutine can be preempted, so a runaway guest
// cannot stall the Go scheduler or the garbage collector's stop-the-world), and traps
// (unreachable) if the host has set $flag. The host sets $flag, exported as
// abi.ExportInterrupt, on the deadline, cancellation, Host.Stop or Guest.Close (epoch.go).
// A start section is dropped and its function exported as abi.ExportStart, so the host runs
// it itself, under the same interruption, after instantiation.

// checkInterval is how many checks run between two trips into Go (and two looks at $flag).
const checkInterval = 1 << 12

// Reserved export names; a guest must not define them (ABI.md §2).
const (
	exportInterrupt = "mcpwasm_interrupt"
	exportStart     = "mcpwasm_start"
)

const (
	sectionCustom   = 0
	sectionType     = 1
	sectionImport   = 2
	sectionFunction = 3
	sectionMemory   = 5
	sectionGlobal   = 6
	sectionExport   = 7
	sectionStart    = 8
	sectionCode     = 10
	sectionTag      = 13
	sectionDataCnt  = 12
)

var errMalformed = errors.New("malformed module")

// errReserved: the guest defines an export name the host reserves.
var errReserved = errors.New("reserved export name")

// sectionRank orders the known sections as the binary format requires.
func sectionRank(id byte) int {
	switch id {
	case sectionTag:
		return 6
	case 6, 7, 8, 9:
		return int(id) + 1
	case sectionDataCnt:
		return 11
	case 10, 11:
		return int(id) + 2
	}
	return int(id)
}

// moduleInfo is what the rewrite needs to know about a module.
type moduleInfo struct {
	sections                      map[byte][]byte // non-custom section bodies
	importFuncs, importGlobals    uint32
	funcs, globals, types, memory uint32
	hasStart                      bool
	start                         uint32
}

// instrumentCalls returns a copy of the binary module wasm with the interruption checks
// described above. Custom sections named .debug_* are dropped, since their code offsets would
// no longer match.
func instrumentCalls(wasm []byte) ([]byte, error) {
	if len(wasm) < 8 || string(wasm[:4]) != "\x00asm" {
		return nil, fmt.Errorf("%w: no wasm header", errMalformed)
	}
	type section struct {
		id   byte
		body []byte
	}
	var secs []section
	mi := moduleInfo{sections: map[byte][]byte{}}
	for r := wasm[8:]; len(r) > 0; {
		id := r[0]
		size, n, err := readU32(r[1:])
		if err != nil {
			return nil, fmt.Errorf("%w: section %d size: %v", errMalformed, id, err)
		}
		start := 1 + n
		if uint64(start)+uint64(size) > uint64(len(r)) {
			return nil, fmt.Errorf("%w: section %d overruns the module", errMalformed, id)
		}
		body := r[start : start+int(size)]
		r = r[start+int(size):]
		if id == sectionCustom {
			if name, _, err := readName(body); err == nil && strings.HasPrefix(name, ".debug_") {
				continue
			}
		} else {
			if _, dup := mi.sections[id]; dup {
				return nil, fmt.Errorf("%w: section %d repeated", errMalformed, id)
			}
			mi.sections[id] = body
		}
		secs = append(secs, section{id, body})
	}
	if err := mi.scan(); err != nil {
		return nil, err
	}
	fuel, flag := mi.importGlobals+mi.globals, mi.importGlobals+mi.globals+1
	slow := mi.importFuncs + mi.funcs
	check := appendCheck(nil, fuel, slow)

	// The sections to add or replace, by id.
	repl := map[byte][]byte{}
	repl[sectionType] = appendVec(mi.sections[sectionType], []byte{0x60, 0x00, 0x00})
	repl[sectionFunction] = appendVec(mi.sections[sectionFunction], binary.AppendUvarint(nil, uint64(mi.types)))
	g := []byte{0x7f, 0x01, 0x41}
	g = appendS32(g, checkInterval)
	g = append(g, 0x0b, 0x7f, 0x01, 0x41, 0x00, 0x0b)
	repl[sectionGlobal] = appendVecN(mi.sections[sectionGlobal], g, 2)
	exp := appendExport(nil, exportInterrupt, 0x03, flag)
	nexp := 1
	if mi.hasStart {
		exp = appendExport(exp, exportStart, 0x00, mi.start)
		nexp++
	}
	repl[sectionExport] = appendVecN(mi.sections[sectionExport], exp, nexp)
	code, err := instrumentCode(mi.sections[sectionCode], check)
	if err != nil {
		return nil, err
	}
	repl[sectionCode] = appendVec(code, slowBody(fuel, flag, mi.memory > 0))

	out := make([]byte, 0, len(wasm)+len(wasm)/8+256)
	out = append(out, wasm[:8]...)
	emit := func(id byte, body []byte) []byte {
		out = append(out, id)
		out = binary.AppendUvarint(out, uint64(len(body)))
		return append(out, body...)
	}
	// Sections that did not exist are added before the first section that must follow them.
	added := []byte{sectionType, sectionFunction, sectionGlobal, sectionExport, sectionCode}
	flush := func(before int) {
		for len(added) > 0 && sectionRank(added[0]) < before {
			if _, ok := mi.sections[added[0]]; !ok {
				out = emit(added[0], repl[added[0]])
			}
			added = added[1:]
		}
	}
	for _, s := range secs {
		if s.id == sectionCustom {
			out = emit(s.id, s.body)
			continue
		}
		flush(sectionRank(s.id))
		switch {
		case s.id == sectionStart:
			continue // exported as exportStart instead
		case repl[s.id] != nil:
			out = emit(s.id, repl[s.id])
		default:
			out = emit(s.id, s.body)
		}
	}
	flush(1 << 30)
	return out, nil
}

// scan counts imports, functions, globals, types and memories, reads the start function,
// and refuses a module that already exports a reserved name.
func (mi *moduleInfo) scan() error {
	var err error
	count := func(id byte) uint32 {
		b, ok := mi.sections[id]
		if !ok || err != nil {
			return 0
		}
		n, _, e := readU32(b)
		if e != nil {
			err = fmt.Errorf("%w: section %d count: %v", errMalformed, id, e)
		}
		return n
	}
	mi.types, mi.funcs, mi.globals, mi.memory = count(sectionType), count(sectionFunction), count(sectionGlobal), count(sectionMemory)
	if err != nil {
		return err
	}
	if b, ok := mi.sections[sectionImport]; ok {
		if err := mi.scanImports(b); err != nil {
			return fmt.Errorf("%w: import section: %v", errMalformed, err)
		}
	}
	if b, ok := mi.sections[sectionStart]; ok {
		if mi.start, _, err = readU32(b); err != nil {
			return fmt.Errorf("%w: start section: %v", errMalformed, err)
		}
		mi.hasStart = true
	}
	if b, ok := mi.sections[sectionExport]; ok {
		n, off, err := readU32(b)
		if err != nil {
			return fmt.Errorf("%w: export section: %v", errMalformed, err)
		}
		for range n {
			name, l, err := readName(b[off:])
			if err != nil || off+l+1 > len(b) {
				return fmt.Errorf("%w: export section: bad entry", errMalformed)
			}
			off += l + 1 // name, kind
			_, l, err = readU32(b[off:])
			if err != nil {
				return fmt.Errorf("%w: export section: %v", errMalformed, err)
			}
			off += l
			if name == exportInterrupt || name == exportStart {
				return fmt.Errorf("%w: the module exports %s, which the host reserves (ABI.md §2)", errReserved, name)
			}
		}
	}
	return nil
}

func (mi *moduleInfo) scanImports(b []byte) error {
	n, off, err := readU32(b)
	if err != nil {
		return err
	}
	skip := func() error {
		_, l, err := readU32(b[min(off, len(b)):])
		off += l
		return err
	}
	for range n {
		for range 2 { // module, name
			_, l, err := readName(b[min(off, len(b)):])
			if err != nil {
				return err
			}
			off += l
		}
		if off >= len(b) {
			return errors.New("truncated")
		}
		kind := b[off]
		off++
		switch kind {
		case 0x00: // func: typeidx
			mi.importFuncs++
			err = skip()
		case 0x01: // table: reftype, limits
			off++
			err = skipLimits(b, &off)
		case 0x02: // memory: limits
			mi.memory++
			err = skipLimits(b, &off)
		case 0x03: // global: valtype, mut
			mi.importGlobals++
			off += 2
		case 0x04: // tag: attribute, typeidx
			off++
			err = skip()
		default:
			return fmt.Errorf("unknown import kind %#x", kind)
		}
		if err != nil {
			return err
		}
		if off > len(b) {
			return errors.New("truncated")
		}
	}
	return nil
}

func skipLimits(b []byte, off *int) error {
	if *off >= len(b) {
		return errors.New("truncated limits")
	}
	flags := b[*off]
	*off++
	for range 1 + int(flags&1) {
		_, l, err := readLEB(b[min(*off, len(b)):], 10)
		if err != nil {
			return err
		}
		*off += l
	}
	return nil
}

// appendCheck appends the check run at function entries and loop headers.
func appendCheck(b []byte, fuel, slow uint32) []byte {
	b = append(b, 0x23) // global.get $fuel
	b = binary.AppendUvarint(b, uint64(fuel))
	b = append(b, 0x41, 0x01, 0x6b, 0x24) // i32.const 1, i32.sub, global.set $fuel
	b = binary.AppendUvarint(b, uint64(fuel))
	b = append(b, 0x23) // global.get $fuel
	b = binary.AppendUvarint(b, uint64(fuel))
	b = append(b, 0x45, 0x04, 0x40, 0x10) // i32.eqz, if, call $slow
	b = binary.AppendUvarint(b, uint64(slow))
	return append(b, 0x0b) // end
}

// slowBody is $slow: refill $fuel, visit Go, trap if $flag is set.
func slowBody(fuel, flag uint32, memory bool) []byte {
	b := []byte{0x00, 0x41} // no locals; i32.const checkInterval
	b = appendS32(b, checkInterval)
	b = append(b, 0x24) // global.set $fuel
	b = binary.AppendUvarint(b, uint64(fuel))
	if memory {
		b = append(b, 0x41, 0x00, 0x40, 0x00, 0x1a) // i32.const 0, memory.grow 0, drop
	}
	b = append(b, 0x23) // global.get $flag
	b = binary.AppendUvarint(b, uint64(flag))
	b = append(b, 0x04, 0x40, 0x00, 0x0b, 0x0b)                    // if, unreachable, end; end
	return append(binary.AppendUvarint(nil, uint64(len(b))), b...) // size-prefixed
}

// appendS32 appends v as a signed LEB128 (the encoding of i32.const).
func appendS32(b []byte, v int32) []byte {
	for {
		c := byte(v & 0x7f)
		v >>= 7
		if (v == 0 && c&0x40 == 0) || (v == -1 && c&0x40 != 0) {
			return append(b, c)
		}
		b = append(b, c|0x80)
	}
}

func appendExport(b []byte, name string, kind byte, idx uint32) []byte {
	b = binary.AppendUvarint(b, uint64(len(name)))
	b = append(b, name...)
	b = append(b, kind)
	return binary.AppendUvarint(b, uint64(idx))
}

// appendVec returns the vector section sec (count, items) with one more item appended.
func appendVec(sec, item []byte) []byte { return appendVecN(sec, item, 1) }

// appendVecN returns the vector section sec with n more items, encoded in items, appended.
// A nil sec is an empty vector.
func appendVecN(sec, items []byte, n int) []byte {
	var count uint32
	var rest []byte
	if len(sec) > 0 {
		c, l, err := readU32(sec)
		if err == nil {
			count, rest = c, sec[l:]
		}
	}
	out := binary.AppendUvarint(make([]byte, 0, len(sec)+len(items)+5), uint64(count)+uint64(n))
	out = append(out, rest...)
	return append(out, items...)
}

// instrumentCode puts check at the start of every function body and of every loop.
func instrumentCode(sec []byte, check []byte) ([]byte, error) {
	if sec == nil {
		return nil, nil
	}
	count, n, err := readU32(sec)
	if err != nil {
		return nil, fmt.Errorf("%w: code section count: %v", errMalformed, err)
	}
	out := make([]byte, 0, len(sec)+len(sec)/4+int(count)*(len(check)+1))
	out = binary.AppendUvarint(out, uint64(count))
	r := sec[n:]
	var body []byte
	for i := range count {
		size, n, err := readU32(r)
		if err != nil || uint64(n)+uint64(size) > uint64(len(r)) {
			return nil, fmt.Errorf("%w: function body %d: bad size", errMalformed, i)
		}
		fn := r[n : n+int(size)]
		r = r[n+int(size):]
		localsEnd, err := skipLocals(fn)
		if err != nil {
			return nil, fmt.Errorf("%w: function body %d: %v", errMalformed, i, err)
		}
		body = append(body[:0], fn[:localsEnd]...)
		body = append(body, check...)
		if body, err = instrumentLoops(body, fn[localsEnd:], check); err != nil {
			return nil, fmt.Errorf("%w: function body %d: %v", errMalformed, i, err)
		}
		out = binary.AppendUvarint(out, uint64(len(body)))
		out = append(out, body...)
	}
	if len(r) != 0 {
		return nil, fmt.Errorf("%w: %d trailing bytes in code section", errMalformed, len(r))
	}
	return out, nil
}

// skipLocals returns the offset just past a function body's local declarations:
// vec(n:u32 type:valtype). Every value type of the features wazero enables is one byte.
func skipLocals(body []byte) (int, error) {
	groups, off, err := readU32(body)
	if err != nil {
		return 0, err
	}
	for range groups {
		_, n, err := readU32(body[off:])
		if err != nil {
			return 0, err
		}
		off += n + 1
		if off > len(body) {
			return 0, errors.New("locals overrun the body")
		}
	}
	return off, nil
}

func readName(b []byte) (string, int, error) {
	l, n, err := readU32(b)
	if err != nil || uint64(n)+uint64(l) > uint64(len(b)) {
		return "", 0, errMalformed
	}
	return string(b[n : n+int(l)]), n + int(l), nil
}

// readU32 decodes an unsigned LEB128 of at most 5 bytes (the wasm u32 encoding).
func readU32(b []byte) (uint32, int, error) {
	var v uint64
	for i := 0; i < 5; i++ {
		if i >= len(b) {
			return 0, 0, errors.New("truncated LEB128")
		}
		v |= uint64(b[i]&0x7f) << (7 * i)
		if b[i]&0x80 == 0 {
			if v > 1<<32-1 {
				return 0, 0, errors.New("LEB128 overflows u32")
			}
			return uint32(v), i + 1, nil
		}
	}
	return 0, 0, errors.New("LEB128 longer than 5 bytes")
}

// readLEB skips a LEB128 (signed or unsigned) of at most max bytes and returns its low bits.
func readLEB(b []byte, max int) (uint64, int, error) {
	var v uint64
	for i := 0; i < max; i++ {
		if i >= len(b) {
			return 0, 0, errors.New("truncated LEB128")
		}
		if i < 10 {
			v |= uint64(b[i]&0x7f) << (7 * i)
		}
		if b[i]&0x80 == 0 {
			return v, i + 1, nil
		}
	}
	return 0, 0, errors.New("LEB128 too long")
}

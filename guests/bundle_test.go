package guests

import (
	"bytes"
	"errors"
	"fmt"
	"github.com/mcpwasm/mcpwasm/internal/testenv"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

func TestDefault(t *testing.T) {
	var names []string
	for _, g := range Default() {
		names = append(names, g.Name)
		if len(g.Wasm) == 0 {
			t.Errorf("%s: empty module", g.Name)
		}
	}
	if !slices.Equal(names, []string{"calc", "text"}) {
		t.Errorf("Default() names = %v, want [calc text]", names)
	}
}

// goTool returns the go command build.sh would run.
func goTool(t *testing.T) string {
	t.Helper()
	if p, err := exec.LookPath("go"); err == nil {
		return p
	}
	p := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(p); err != nil {
		testenv.Skip(t, "no go command found")
	}
	return p
}

// buildTags are the build tags guests/build.sh gives each guest.
var buildTags = map[string]string{"calc": "mcpwasm_nojson", "text": "mcpwasm_nojson"}

// buildGuest builds ./guests/name into dir with exactly the flags of build.sh.
func buildGuest(t *testing.T, goCmd, name, dir string) []byte {
	t.Helper()
	out := filepath.Join(dir, name+".wasm")
	cmd := exec.Command(goCmd, "build", "-buildmode=c-shared", "-buildvcs=false", "-trimpath", `-ldflags=-s -w`,
		"-tags="+buildTags[name], "-o", out, "./guests/"+name)
	cmd.Dir = ".." // the repo root, as build.sh runs it
	cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building %s: %v\n%s", name, err, b)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// trackInputs reads the sources the guests are built from. go test caches a passing result
// keyed by the files a test opens; reading them here makes an edit to a guest, to abi/ or to
// go.mod invalidate that cache, so a cached PASS never hides a stale module.
func trackInputs(t *testing.T) {
	t.Helper()
	for _, f := range []string{"../go.mod", "../go.sum"} {
		if _, err := os.ReadFile(f); err != nil && !errors.Is(err, fs.ErrNotExist) {
			t.Fatal(err)
		}
	}
	readTrees(t, "../abi", "calc", "text")
}

// readTrees reads every file under dirs (see trackInputs).
func readTrees(tb testing.TB, dirs ...string) {
	tb.Helper()
	for _, dir := range dirs {
		err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			_, err = os.ReadFile(path)
			return err
		})
		if err != nil {
			tb.Fatal(err)
		}
	}
}

// TestBundledCurrent rebuilds each guest and checks the committed module is that build.
func TestBundledCurrent(t *testing.T) {
	if testing.Short() {
		t.Skip("rebuilds the guests; skipped with -short")
	}
	goCmd := goTool(t)
	trackInputs(t)
	for _, g := range Default() {
		t.Run(g.Name, func(t *testing.T) {
			first := buildGuest(t, goCmd, g.Name, t.TempDir())
			second := buildGuest(t, goCmd, g.Name, t.TempDir())
			if !bytes.Equal(first, second) {
				t.Fatalf("building guests/%s twice gave different modules: the build is not reproducible, so staleness cannot be checked", g.Name)
			}
			onDisk, err := os.ReadFile(g.Name + ".wasm")
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(onDisk, g.Wasm) {
				t.Fatalf("guests/%s.wasm changed since this test binary embedded it", g.Name)
			}
			if !bytes.Equal(first, g.Wasm) {
				t.Fatalf("guests/%s.wasm is stale: run guests/build.sh", g.Name)
			}
		})
	}
}

// TestBundledExports checks each embedded module has the ABI's exports with the ABI's
// signatures (abi/ABI.md §2), is a reactor (no _start), and imports only WASI and mcpwasm_v1.
func TestBundledExports(t *testing.T) {
	want := map[string]string{
		"mcpwasm_abi_version": "() -> (i32)",
		"mcpwasm_alloc":       "(i32) -> (i32)",
		"mcpwasm_describe":    "() -> (i64)",
		"mcpwasm_call":        "(i32 i32 i32 i32) -> (i64)",
		"_initialize":         "() -> ()",
	}
	for _, g := range Default() {
		m, err := parseModule(g.Wasm)
		if err != nil {
			t.Errorf("%s: %v", g.Name, err)
			continue
		}
		for name, sig := range want {
			got, ok := m.funcExports[name]
			if !ok {
				t.Errorf("%s: missing export %s", g.Name, name)
			} else if got != sig {
				t.Errorf("%s: export %s has type %s, want %s", g.Name, name, got, sig)
			}
		}
		if !m.memoryExports["memory"] {
			t.Errorf("%s: missing memory export \"memory\"", g.Name)
		}
		if _, ok := m.funcExports["_start"]; ok {
			t.Errorf("%s: exports _start (a WASI command, which the host refuses)", g.Name)
		}
		for _, mod := range m.importModules {
			if mod != "wasi_snapshot_preview1" && mod != "mcpwasm_v1" {
				t.Errorf("%s: imports from module %q", g.Name, mod)
			}
		}
	}
}

func TestParseModuleRejects(t *testing.T) {
	for _, b := range [][]byte{
		nil,
		[]byte("\x7fELF\x01\x00\x00\x00"),
		[]byte("\x00asm\x01\x00\x00\x00\x07\x05\x01"), // export section shorter than its size
	} {
		if _, err := parseModule(b); err == nil {
			t.Errorf("parseModule(%q) succeeded", b)
		}
	}
}

// ---- a minimal WebAssembly binary reader: types, imports, functions, exports ----

type module struct {
	funcExports   map[string]string // export name → signature, e.g. "(i32) -> (i64)"
	memoryExports map[string]bool
	importModules []string
}

type reader struct {
	b   []byte
	err error
}

var errTruncated = errors.New("truncated module")

func (r *reader) byte() byte {
	if r.err != nil || len(r.b) == 0 {
		r.err = errTruncated
		return 0
	}
	c := r.b[0]
	r.b = r.b[1:]
	return c
}

func (r *reader) u32() uint32 { // unsigned LEB128
	var v uint32
	for shift := 0; shift < 35; shift += 7 {
		c := r.byte()
		v |= uint32(c&0x7f) << shift
		if c&0x80 == 0 {
			return v
		}
	}
	if r.err == nil {
		r.err = errors.New("LEB128 too long")
	}
	return 0
}

func (r *reader) bytes(n uint32) []byte {
	if r.err != nil || uint64(n) > uint64(len(r.b)) {
		r.err = errTruncated
		return nil
	}
	s := r.b[:n]
	r.b = r.b[n:]
	return s
}

func (r *reader) name() string { return string(r.bytes(r.u32())) }

func (r *reader) limits() {
	if r.byte()&1 != 0 {
		r.u32()
	}
	r.u32()
}

var valTypes = map[byte]string{0x7f: "i32", 0x7e: "i64", 0x7d: "f32", 0x7c: "f64", 0x7b: "v128", 0x70: "funcref", 0x6f: "externref"}

func (r *reader) resultTypes() string {
	n := r.u32()
	var s []string
	for range n {
		c := r.byte()
		t, ok := valTypes[c]
		if !ok && r.err == nil {
			r.err = fmt.Errorf("unknown value type 0x%x", c)
		}
		s = append(s, t)
	}
	return "(" + strings.Join(s, " ") + ")"
}

func parseModule(b []byte) (*module, error) {
	if len(b) < 8 || string(b[:4]) != "\x00asm" || string(b[4:8]) != "\x01\x00\x00\x00" {
		return nil, errors.New("not a WebAssembly 1.0 binary module")
	}
	m := &module{funcExports: map[string]string{}, memoryExports: map[string]bool{}}
	var types []string // signature of each type index
	var funcTypes []uint32
	type export struct {
		name string
		kind byte
		idx  uint32
	}
	var exports []export
	r := &reader{b: b[8:]}
	for len(r.b) > 0 && r.err == nil {
		id := r.byte()
		s := &reader{b: r.bytes(r.u32())}
		if r.err != nil {
			break
		}
		switch id {
		case 1: // type
			for range s.u32() {
				if form := s.byte(); form != 0x60 && s.err == nil {
					s.err = fmt.Errorf("unknown type form 0x%x", form)
				}
				params := s.resultTypes()
				results := s.resultTypes()
				types = append(types, params+" -> "+results)
			}
		case 2: // import
			for range s.u32() {
				mod := s.name()
				s.name()
				if !slices.Contains(m.importModules, mod) {
					m.importModules = append(m.importModules, mod)
				}
				switch kind := s.byte(); kind {
				case 0: // function
					funcTypes = append(funcTypes, s.u32())
				case 1: // table
					s.byte()
					s.limits()
				case 2: // memory
					s.limits()
				case 3: // global
					s.byte()
					s.byte()
				default:
					if s.err == nil {
						s.err = fmt.Errorf("unknown import kind %d", kind)
					}
				}
			}
		case 3: // function
			for range s.u32() {
				funcTypes = append(funcTypes, s.u32())
			}
		case 7: // export
			for range s.u32() {
				exports = append(exports, export{name: s.name(), kind: s.byte(), idx: s.u32()})
			}
		}
		if s.err != nil {
			return nil, fmt.Errorf("section %d: %w", id, s.err)
		}
	}
	if r.err != nil {
		return nil, r.err
	}
	for _, e := range exports {
		switch e.kind {
		case 0:
			if int(e.idx) >= len(funcTypes) || int(funcTypes[e.idx]) >= len(types) {
				return nil, fmt.Errorf("export %s: function index %d out of range", e.name, e.idx)
			}
			m.funcExports[e.name] = types[funcTypes[e.idx]]
		case 2:
			m.memoryExports[e.name] = true
		}
	}
	return m, nil
}

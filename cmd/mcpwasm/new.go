package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"text/template"

	jsguest "github.com/mcpwasm/mcpwasm/abi/js"
)

// sdkModule is the module path of mcpwasm: the Go guest SDK and the runtime a scaffold's test
// loads its guest with.
const sdkModule = "github.com/mcpwasm/mcpwasm"

var projectName = regexp.MustCompile(`^[a-z][a-z0-9_]{0,63}$`)

// newProject is `mcpwasm new LANG NAME [DIR]`: it writes a one-tool guest project. Every
// language gets build.sh (one command builds NAME.wasm) and a Go test (guest_test.go) that
// builds the guest and calls its tool through mcpwasm's runtime, so each project is a Go
// module requiring sdkModule: at the running binary's version when it is a release, or
// replaced by a local checkout — --sdk DIR (default $MCPWASM_SDK), else, for a development
// build, the checkout it was built from (findSDK). C and Rust projects get a copy of the SDK
// file(s) from the checkout.
func newProject(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) (int, error) {
	fs := flag.NewFlagSet("new", flag.ContinueOnError)
	fs.SetOutput(stderr)
	sdk := fs.String("sdk", os.Getenv("MCPWASM_SDK"), "a checkout of mcpwasm the project uses instead of a published version (default $MCPWASM_SDK)")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return ExitUsage, err
	}
	switch {
	case len(pos) == 0:
		return ExitUsage, errors.New("missing LANGUAGE (go, c, rust, wat, ts or js)")
	case len(pos) == 1:
		return ExitUsage, errors.New("missing NAME")
	case len(pos) > 3:
		return ExitUsage, fmt.Errorf("unexpected argument %q", pos[3])
	}
	lang, name := pos[0], pos[1]
	files, ok := scaffolds[lang]
	if !ok && lang != "ts" && lang != "js" {
		return ExitUsage, fmt.Errorf("unknown language %q (want go, c, rust, wat, ts or js)", lang)
	}
	if !projectName.MatchString(name) {
		return ExitUsage, fmt.Errorf("NAME %q: want lower-case letters, digits and _, starting with a letter (it names the tool, the module and the files)", name)
	}
	dir := name
	if len(pos) == 3 {
		dir = pos[2]
	}
	if entries, err := os.ReadDir(dir); err == nil && len(entries) > 0 {
		return ExitUsage, fmt.Errorf("%s exists and is not empty", dir)
	}
	if lang == "ts" || lang == "js" {
		return newScriptProject(lang, name, dir, stdout)
	}

	data := scaffoldData{Name: name, Lang: lang, SDKModule: sdkModule, GoVersion: sdkGoVersion}
	sdkDir := *sdk
	if sdkDir != "" {
		abs, err := filepath.Abs(sdkDir)
		if err != nil {
			return ExitUsage, err
		}
		if b, err := os.ReadFile(filepath.Join(abs, "go.mod")); err != nil || !strings.Contains(string(b), "module "+sdkModule+"\n") {
			return ExitUsage, fmt.Errorf("--sdk %s: not a checkout of %s (no go.mod naming it)", sdkDir, sdkModule)
		}
		sdkDir = abs
	} else if bv := buildVersion(); releaseVersion(bv) && sdkSources[lang] == nil {
		data.SDKVersion = bv
	} else if sdkDir = findSDK(); sdkDir == "" {
		// A development build (or a C/Rust project, which copies SDK files) needs the source.
		what := fmt.Sprintf("this mcpwasm is a development build (%s) and %s is not published", version(), sdkModule)
		if releaseVersion(bv) {
			what = fmt.Sprintf("a %s project copies the SDK's %s from a checkout", lang, strings.Join(sdkSources[lang], " and "))
		}
		return ExitUsage, fmt.Errorf("%s, and no checkout of it was found where this binary was built or above the current directory: pass --sdk DIR (a checkout of mcpwasm) or set MCPWASM_SDK", what)
	}
	if sdkDir != "" {
		data.SDKVersion, data.SDKReplace = "v0.0.0", sdkDir
	}
	data.WATManifest, data.WATManifestLen = watManifest(name)

	// The project is written into a temporary directory beside dir and renamed into place only
	// once go mod tidy has succeeded, so a failure leaves nothing that blocks a retry.
	tmp, cleanup, err := stageDir(dir)
	if err != nil {
		return ExitError, err
	}
	defer cleanup()
	write := func(rel string, b []byte, mode os.FileMode) error {
		p := filepath.Join(tmp, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		return os.WriteFile(p, b, mode)
	}
	for _, f := range append(files, commonFiles...) {
		var b strings.Builder
		t := template.Must(template.New(f.path).Delims("[[", "]]").Parse(f.text))
		if err := t.Execute(&b, data); err != nil {
			return ExitError, err
		}
		mode := os.FileMode(0o644)
		if strings.HasSuffix(f.path, ".sh") {
			mode = 0o755
		}
		if err := write(strings.ReplaceAll(f.path, "NAME", name), []byte(b.String()), mode); err != nil {
			return ExitError, err
		}
	}
	// C and Rust compile the SDK's source: copy it from the checkout.
	for _, rel := range sdkSources[lang] {
		b, err := os.ReadFile(filepath.Join(data.SDKReplace, rel))
		if err != nil {
			return ExitError, err
		}
		if err := write(filepath.Join("sdk", filepath.Base(rel)), b, 0o644); err != nil {
			return ExitError, err
		}
	}
	// A checkout's go.sum holds the checksums of every module the project's test needs, so
	// go mod tidy verifies them without asking the checksum database (an offline machine,
	// GOPROXY=off, a proxy-only network); tidy drops the lines the project does not use.
	if data.SDKReplace != "" {
		if b, err := os.ReadFile(filepath.Join(data.SDKReplace, "go.sum")); err == nil {
			if err := write("go.sum", b, 0o644); err != nil {
				return ExitError, err
			}
		}
	}
	// go.sum: the test's dependencies, resolved from the module cache (or the proxy).
	tidy := exec.CommandContext(ctx, "go", "mod", "tidy")
	tidy.Dir = tmp
	if out, err := tidy.CombinedOutput(); err != nil {
		hint := ""
		if data.SDKReplace == "" {
			hint = fmt.Sprintf("; if this mcpwasm (%s) was built from a checkout, pass --sdk DIR", data.SDKVersion)
		}
		return ExitError, fmt.Errorf("go mod tidy failed for the new project, so %s was not created (fix the cause, then run mcpwasm new again%s): %w\n%s", dir, hint, err, out)
	}
	if err := placeDir(tmp, dir); err != nil {
		return ExitError, err
	}
	fmt.Fprintf(stdout, "created %s (%s guest %q)\n  cd %s && ./build.sh && go test ./...    # build %s.wasm, then test it through the runtime\n  mcpwasm serve %s.wasm\n",
		dir, lang, name, dir, name, name)
	return ExitOK, nil
}

// newScriptProject writes a JavaScript or TypeScript guest project (abi/js.Project): an npm
// project whose `npm run build` makes NAME.wasm, the quickjs-wasi engine with the bundled
// server script in it. It needs no Go and no checkout of mcpwasm.
func newScriptProject(lang, name, dir string, stdout io.Writer) (int, error) {
	files, err := jsguest.Project(lang, name)
	if err != nil {
		return ExitUsage, err
	}
	tmp, cleanup, err := stageDir(dir)
	if err != nil {
		return ExitError, err
	}
	defer cleanup()
	for rel, b := range files {
		p := filepath.Join(tmp, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return ExitError, err
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			return ExitError, err
		}
	}
	if err := placeDir(tmp, dir); err != nil {
		return ExitError, err
	}
	fmt.Fprintf(stdout, "created %s (%s guest %q)\n  cd %s && npm ci && npm run build    # build %s.wasm: the engine and the bundled script\n  mcpwasm serve %s.wasm\n",
		dir, lang, name, dir, name, name)
	return ExitOK, nil
}

// stageDir makes a temporary directory for a project to be written into: beside dir
// (creating dir's missing parents), or inside dir when dir exists (empty, checked first; it
// may be "." or a directory whose parent is not writable). cleanup removes it, and the
// parents it created, unless placeDir has moved it into place.
func stageDir(dir string) (tmp string, cleanup func(), err error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", nil, err
	}
	where := filepath.Dir(abs)
	if fi, err := os.Stat(abs); err == nil && fi.IsDir() {
		where = abs
	}
	created := "" // the outermost parent this call creates
	for d := where; ; d = filepath.Dir(d) {
		if _, err := os.Stat(d); err == nil || filepath.Dir(d) == d {
			break
		}
		created = d
	}
	if err := os.MkdirAll(where, 0o755); err != nil {
		return "", nil, err
	}
	tmp, err = os.MkdirTemp(where, "."+filepath.Base(abs)+".new-")
	if err != nil {
		if created != "" {
			os.RemoveAll(created)
		}
		return "", nil, err
	}
	return tmp, func() {
		if _, err := os.Stat(tmp); err == nil {
			os.RemoveAll(tmp)
			if created != "" {
				os.RemoveAll(created)
			}
		}
	}, nil
}

// placeDir moves the finished project tmp (from stageDir) to dir: renamed to dir, or, when it
// was staged inside dir, its entries moved up into dir.
func placeDir(tmp, dir string) error {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	if filepath.Dir(tmp) != abs {
		if err := os.Chmod(tmp, 0o755); err != nil { // MkdirTemp makes it 0700
			return err
		}
		return os.Rename(tmp, abs)
	}
	entries, err := os.ReadDir(tmp)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if err := os.Rename(filepath.Join(tmp, e.Name()), filepath.Join(abs, e.Name())); err != nil {
			return err
		}
	}
	return os.Remove(tmp)
}

var sdkSources = map[string][]string{"c": {"abi/c/mcpwasm.h", "abi/c/mcpwasm.c"}, "rust": {"abi/rust/mcpwasm.rs"}}

type scaffoldData struct {
	Name, Lang, SDKModule, GoVersion string
	SDKVersion, SDKReplace           string // the required version; the checkout replacing it, if any
	WATManifest                      string // the manifest as a WAT string literal's contents
	WATManifestLen                   int
}

// watManifest is the WAT guest's manifest: one tool NAME echoing its arguments.
func watManifest(name string) (string, int) {
	m, _ := json.Marshal(map[string]any{"name": name, "version": "0.1.0", "tools": []any{map[string]any{
		"name": name, "description": "Returns its arguments as structured content",
		"inputSchema": map[string]any{"type": "object", "properties": map[string]any{"text": map[string]any{"type": "string"}}},
	}}})
	return strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(string(m)), len(m)
}

// sdkGoVersion is the go line of mcpwasm's go.mod: a new project requires the SDK module, so
// it needs at least that Go (TestScaffoldGoVersion keeps the two equal).
const sdkGoVersion = "1.26.8"

type scaffoldFile struct{ path, text string }

// commonFiles: the Go module and README of every project.
var commonFiles = []scaffoldFile{
	{"go.mod", `module [[.Name]]

go [[.GoVersion]]

require [[.SDKModule]] [[.SDKVersion]]
[[if eq .Lang "go"]]
// schemagen writes schemas_gen.go: the tools' JSON Schemas, inferred from their Go types at
// build time, so the module need not link a schema library (build.sh runs it).
tool [[.SDKModule]]/abi/guest/schemagen
[[end]][[if .SDKReplace]]
// Nothing of mcpwasm is published yet: use a local checkout. Remove this line (and set the
// version above) once [[.SDKModule]] is published.
replace [[.SDKModule]] => [[.SDKReplace]]
[[end]]`},
	{"README.md", `# [[.Name]]

An mcpwasm guest ([[.Lang]]) with one tool, ` + "`[[.Name]]`" + `. Created by ` + "`mcpwasm new [[.Lang]] [[.Name]]`" + `.

` + "```sh" + `
./build.sh                 # builds [[.Name]].wasm
go test ./...              # builds it again and calls the tool through mcpwasm's runtime
mcpwasm serve [[.Name]].wasm
mcpwasm call [[.Name]] '{"[[if eq .Lang "wat"]]text[[else]]name[[end]]":"Ada"}' -- mcpwasm serve [[.Name]].wasm
` + "```" + `

The test is Go whatever the guest's language: go.mod requires [[.SDKModule]] for it[[if .SDKReplace]]
(replaced by the checkout at [[.SDKReplace]], since nothing is published yet)[[end]].
[[if eq .Lang "c"]]Toolchain: clang with a wasm32-wasi sysroot (Debian 12: clang-16 lld-16 wasi-libc
libclang-rt-16-dev-wasm32); set CC to use another clang. sdk/ is a copy of the C SDK.
[[else if eq .Lang "rust"]]Toolchain: a rustc with the wasm32-wasip1 or wasm32-wasi standard library (Debian 12:
rustc libstd-rust-dev-wasm32 lld-16; rustup: rustup target add wasm32-wasip1); set RUSTC to
use another. sdk/ is a copy of the Rust SDK.
[[else if eq .Lang "wat"]]Toolchain: wat2wasm (Debian: wabt). The ABI the module implements is abi/ABI.md in mcpwasm.
[[else]]Toolchain: Go [[.GoVersion]] or later (the go.mod version; go:wasmexport).
[[end]]`},
}

const goTestBody = `
// TestTool builds the guest, loads it through mcpwasm's runtime and calls its tool.
func TestTool(t *testing.T) {
	ctx := context.Background()
	host, err := runtime.NewHost(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer host.Close(ctx)
	g, err := host.Load(ctx, buildGuest(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	out, err := g.Call(ctx, "[[.Name]]", []byte(` + "`" + `{"[[if eq .Lang "wat"]]text[[else]]name[[end]]":"Ada"}` + "`" + `))
	if err != nil {
		t.Fatal(err)
	}
	if want := [[if eq .Lang "wat"]]` + "`" + `"structuredContent":{"text":"Ada"}` + "`" + `[[else]]"hello, Ada"[[end]]; !strings.Contains(string(out), want) {
		t.Errorf("result %s, want it to contain %s", out, want)
	}
}
`

var goScaffold = []scaffoldFile{
	{"main.go", `package main

import (
	"context"
	"errors"
)

// In is the tool's input; its JSON schema is inferred from the type.
type In struct {
	Name string ` + "`" + `json:"name" jsonschema:"who to greet"` + "`" + `
}

// greet is the tool. A returned error is a tool error (isError: true).
func greet(ctx context.Context, in In) (string, error) {
	if in.Name == "" {
		return "", errors.New("name is empty")
	}
	return "hello, " + in.Name, nil
}

func main() {} // a c-shared module never runs main; it lets the package build natively for tests
`},
	{"register.go", `//go:build wasip1

package main

import (
	"[[.SDKModule]]/abi"
	"[[.SDKModule]]/abi/guest"
)

func init() {
	guest.SetInfo("[[.Name]]", "0.1.0", "[[.Name]] greets")
	guest.AddTool(abi.Tool{Name: "[[.Name]]", Description: "Greets someone by name"}, greet)
}
`},
	{"build.sh", `#!/usr/bin/env bash
# Builds [[.Name]].wasm, a WASI reactor module for mcpwasm.
set -euo pipefail
cd "$(dirname "$0")"
go tool schemagen .   # the tools' schemas, from their Go types, into schemas_gen.go
GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -trimpath -ldflags="-s -w" -o [[.Name]].wasm .
`},
	{"guest_test.go", `//go:build !wasip1

package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"[[.SDKModule]]/runtime"
)

// buildGuest builds this package as a guest module and returns it.
func buildGuest(t *testing.T) []byte {
	t.Helper()
	out := filepath.Join(t.TempDir(), "[[.Name]].wasm")
	cmd := exec.Command("go", "build", "-buildmode=c-shared", "-o", out, ".")
	cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building the guest: %v\n%s", err, b)
	}
	wasm, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return wasm
}
` + goTestBody},
}

// nativeTest is guest_test.go for C, Rust and WAT: it runs build.sh.
const nativeTest = `package main

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"

	"[[.SDKModule]]/runtime"
)

// buildGuest runs build.sh and returns [[.Name]].wasm.
func buildGuest(t *testing.T) []byte {
	t.Helper()
	if b, err := exec.Command("bash", "build.sh").CombinedOutput(); err != nil {
		t.Fatalf("build.sh: %v\n%s", err, b)
	}
	wasm, err := os.ReadFile("[[.Name]].wasm")
	if err != nil {
		t.Fatal(err)
	}
	return wasm
}
` + goTestBody

// doc.go: a Go package for the test to live in.
const nativeDoc = `// Package main holds the Go test of the [[.Name]] guest (guest_test.go); the guest itself is
// [[if eq .Lang "c"]]src/[[.Name]].c[[else if eq .Lang "rust"]][[.Name]].rs[[else]][[.Name]].[[.Lang]][[end]], built by build.sh.
package main

func main() {}
`

var scaffolds = map[string][]scaffoldFile{
	"go": goScaffold,
	"wat": {
		{"doc.go", nativeDoc},
		{"guest_test.go", nativeTest},
		{"build.sh", `#!/usr/bin/env bash
# Builds [[.Name]].wasm from [[.Name]].wat.
set -euo pipefail
cd "$(dirname "$0")"
command -v wat2wasm >/dev/null || { echo "build.sh: no wat2wasm (Debian: apt-get install wabt)" >&2; exit 3; }
wat2wasm [[.Name]].wat -o [[.Name]].wasm
`},
		{"NAME.wat", `;; [[.Name]] — an mcpwasm guest (ABI v1) in WebAssembly text. One tool, "[[.Name]]", whose
;; result carries its arguments as structured content. Build: ./build.sh
(module
  (memory (export "memory") 1)
  ;; The manifest, [[.WATManifestLen]] bytes at offset 16 (keep the length in mcpwasm_describe in step).
  (data (i32.const 16) "[[.WATManifest]]")
  ;; The result prefix, 34 bytes at offset 512.
  (data (i32.const 512) "{\"content\":[],\"structuredContent\":")

  (func (export "mcpwasm_abi_version") (result i32) (i32.const 1))

  ;; One input region at 1024; the output region follows it. Grow memory to fit both.
  (func (export "mcpwasm_alloc") (param $n i32) (result i32)
    (local $need i32)
    (local.set $need (i32.add (i32.const 2048) (i32.mul (local.get $n) (i32.const 2))))
    (if (i32.gt_u (local.get $need) (i32.mul (memory.size) (i32.const 65536)))
      (then
        (if (i32.eq (memory.grow (i32.div_u (i32.sub (i32.add (local.get $need) (i32.const 65535))
                                                     (i32.mul (memory.size) (i32.const 65536)))
                                            (i32.const 65536)))
                    (i32.const -1))
          (then (return (i32.const 0))))))
    (i32.const 1024))

  ;; (ptr << 32) | len
  (func (export "mcpwasm_describe") (result i64)
    (i64.or (i64.shl (i64.const 16) (i64.const 32)) (i64.const [[.WATManifestLen]])))

  ;; Only one tool, so the name is not inspected. Output: prefix + args + "}" after the input.
  (func (export "mcpwasm_call") (param $name i32) (param $nlen i32) (param $args i32) (param $alen i32) (result i64)
    (local $out i32)
    (local.set $out (i32.add (local.get $args) (local.get $alen)))
    (memory.copy (local.get $out) (i32.const 512) (i32.const 34))
    (memory.copy (i32.add (local.get $out) (i32.const 34)) (local.get $args) (local.get $alen))
    (i32.store8 (i32.add (local.get $out) (i32.add (i32.const 34) (local.get $alen))) (i32.const 125))
    (i64.or (i64.shl (i64.extend_i32_u (local.get $out)) (i64.const 32))
            (i64.extend_i32_u (i32.add (local.get $alen) (i32.const 35)))))
)
`},
	},
	"c": {
		{"doc.go", nativeDoc},
		{"guest_test.go", nativeTest},
		{"build.sh", `#!/usr/bin/env bash
# Builds [[.Name]].wasm from src/[[.Name]].c and the C SDK in sdk/ (a WASI reactor). The C
# sources live in directories of their own: Go refuses .c files beside the .go test files.
set -euo pipefail
cd "$(dirname "$0")"
cc=${CC:-}
[ -n "$cc" ] || cc=$(command -v clang-16 || command -v clang) || {
	echo "build.sh: no clang for wasm32-wasi (Debian 12: apt-get install clang-16 lld-16 wasi-libc libclang-rt-16-dev-wasm32)" >&2
	exit 3
}
"$cc" --target=wasm32-wasi -mexec-model=reactor -Os -Isdk -Wl,--strip-all \
	-o [[.Name]].wasm sdk/mcpwasm.c src/[[.Name]].c
`},
		{"src/NAME.c", `// [[.Name]] — an mcpwasm guest in C with one tool. Build: ./build.sh
#include "mcpwasm.h"

static void greet(const char *tool, const mcpwasm_args *args, mcpwasm_result *res) {
	const char *name;
	if (mcpwasm_arg_string(args, "name", &name, NULL) != MCPWASM_ARG_OK || !*name) {
		mcpwasm_result_error(res, "name is empty");
		return;
	}
	mcpwasm_result_textf(res, "hello, %s", name);
}

void mcpwasm_init(void) {
	mcpwasm_set_info("[[.Name]]", "0.1.0", "[[.Name]] greets");
	mcpwasm_add_tool("[[.Name]]", "Greets someone by name",
	                 "{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\"}},\"required\":[\"name\"]}",
	                 greet);
}
`},
	},
	"rust": {
		{"doc.go", nativeDoc},
		{"guest_test.go", nativeTest},
		{"build.sh", `#!/usr/bin/env bash
# Builds [[.Name]].wasm from [[.Name]].rs and the Rust SDK in sdk/ (a WASI reactor: stable rustc
# has no reactor switch, so the target's crt1-reactor.o is linked and _initialize exported).
set -euo pipefail
cd "$(dirname "$0")"
rustc=${RUSTC:-}
target=""
for r in $rustc "$(command -v rustc || true)" /usr/bin/rustc; do
	[ -n "$r" ] && [ -x "$r" ] || continue
	sr=$("$r" --print sysroot)
	for t in wasm32-wasip1 wasm32-wasi; do
		if [ -d "$sr/lib/rustlib/$t/lib" ]; then rustc=$r; target=$t; break 2; fi
	done
done
[ -n "$target" ] || { echo "build.sh: no rustc with a wasm32-wasip1/wasm32-wasi standard library" >&2; exit 3; }
sr=$("$rustc" --print sysroot)
host=$("$rustc" -vV | sed -n 's/^host: //p')
linker=()
if [ ! -x "$sr/lib/rustlib/$host/bin/rust-lld" ]; then
	ld=$(command -v wasm-ld-16 || command -v wasm-ld) || { echo "build.sh: no wasm-ld (apt-get install lld-16)" >&2; exit 3; }
	linker=(-C "linker=$ld")
fi
"$rustc" --edition 2021 --target "$target" --crate-type cdylib \
	-C opt-level=s -C lto -C codegen-units=1 -C panic=abort -C strip=symbols "${linker[@]}" \
	-C "link-arg=$sr/lib/rustlib/$target/lib/self-contained/crt1-reactor.o" \
	-C link-arg=--export=_initialize \
	-o [[.Name]].wasm [[.Name]].rs
`},
		{"NAME.rs", `// [[.Name]] — an mcpwasm guest in Rust with one tool. Build: ./build.sh
#[path = "sdk/mcpwasm.rs"]
mod mcpwasm;

fn register() {
    mcpwasm::set_info("[[.Name]]", "0.1.0", "[[.Name]] greets");
    mcpwasm::add_tool(
        "[[.Name]]",
        "Greets someone by name",
        r#"{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}"#,
        |args| match args.str("name") {
            Some(name) if !name.is_empty() => Ok(mcpwasm::Output::text(format!("hello, {}", name))),
            _ => Err("name is empty".to_string()),
        },
    );
}
`},
	},
}

package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"

	jsguest "github.com/mcpwasm/mcpwasm/abi/js"
)

// buildCmd is `mcpwasm build`: one .wasm from a JavaScript/TypeScript server — a file, a
// project directory (what its npm run build does), an installed npm package directory (its
// "bin" entry), or npm:NAME[@VERSION] (installed into a private temporary project; the exact
// versions it resolved are written beside the output as OUT.lock.json, and --lock FILE
// repeats that install). The bundling is the guest SDK's build.mjs (abi/js), run by node with
// the pinned esbuild, engine and zod: the toolchain, installed once into the user's cache
// (npm ci of abi/js's lockfile) unless --toolchain names a directory that has them.
func buildCmd(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) (int, error) {
	fs := flag.NewFlagSet("build", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("o", "", "the output module (default: NAME.wasm in the working directory)")
	strict := fs.Bool("strict", false, "fail when a Node built-in without a sandbox meaning (http, child_process, …) is linked as a stub")
	toolchain := fs.String("toolchain", "", "a directory whose node_modules holds the pinned esbuild, quickjs-wasi and zod (default: installed once into the user cache)")
	lock := fs.String("lock", "", "npm: install from this lockfile (an OUT.lock.json an earlier build wrote) instead of resolving versions")
	embedMax := fs.Int("embed-max", 1<<20, "bytes of a package's own files embedded read-only at most")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return ExitUsage, err
	}
	if len(pos) != 1 {
		return ExitUsage, errors.New("want: mcpwasm build [-o OUT.wasm] DIR|FILE.js|FILE.ts|npm:NAME[@VERSION]")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		return ExitError, errors.New("mcpwasm build needs Node.js (node) on PATH: it bundles the server with esbuild")
	}
	src := pos[0]
	var b jsBuild
	b.strict, b.embedMax, b.node = *strict, *embedMax, node
	tmp, err := os.MkdirTemp("", "mcpwasm-build-")
	if err != nil {
		return ExitError, err
	}
	defer os.RemoveAll(tmp)
	var lockOut []byte // npm: the lockfile to write beside the output
	switch {
	case strings.HasPrefix(src, "npm:"):
		dir, lockfile, err := npmInstall(ctx, strings.TrimPrefix(src, "npm:"), *lock, tmp, stderr)
		if err != nil {
			return ExitError, err
		}
		lockOut = lockfile
		if err := b.fromPackageDir(dir); err != nil {
			return ExitError, err
		}
	default:
		file, isDir, err := resolveSource(src)
		if err != nil {
			return ExitUsage, err
		}
		if file != src {
			fmt.Fprintf(stderr, "building %s (for %s)\n", file, src)
		}
		if isDir {
			err = b.fromDir(file)
		} else {
			err = b.fromFile(file)
		}
		if err != nil {
			return ExitError, err
		}
	}
	if *out == "" {
		*out = b.name + ".wasm"
	}
	if b.out, err = filepath.Abs(*out); err != nil {
		return ExitError, err
	}
	tc, err := jsToolchain(ctx, *toolchain, tmp, stderr)
	if err != nil {
		return ExitError, err
	}
	report, err := b.run(ctx, tc, tmp, stdout, stderr)
	if err != nil {
		return ExitError, err
	}
	if lockOut != nil {
		p := strings.TrimSuffix(*out, ".wasm") + ".lock.json"
		if err := os.WriteFile(p, lockOut, 0o644); err != nil {
			return ExitError, err
		}
		fmt.Fprintf(stdout, "%s: the exact package versions (repeat the build with --lock %s)\n", p, p)
	}
	printConfigEntry(stdout, *out, report)
	return ExitOK, nil
}

// scriptExts are the extensions a server path without one is tried with, in Node's order
// for a script (.js, .mjs, .cjs) and then TypeScript's.
var scriptExts = []string{".js", ".mjs", ".cjs", ".ts", ".mts", ".cts"}

// resolveSource resolves what `mcpwasm build PATH` names as Node resolves a script path: the
// file or directory PATH; else PATH with one of scriptExts; a directory without package.json
// by its index file (index.js, …). It returns the path to build and whether it is a
// directory (a project or package), or an error naming what it tried.
func resolveSource(src string) (string, bool, error) {
	tried := func(base string) string {
		exts := strings.Join(scriptExts[1:len(scriptExts)-1], ", ")
		return fmt.Sprintf("%s%s, %s or %s", base, scriptExts[0], exts, scriptExts[len(scriptExts)-1])
	}
	st, err := os.Stat(src)
	switch {
	case err == nil && !st.IsDir():
		return src, false, nil
	case err == nil:
		if _, err := os.Stat(filepath.Join(src, "package.json")); err == nil {
			return src, true, nil
		}
		for _, ext := range scriptExts {
			if f := filepath.Join(src, "index"+ext); isFile(f) {
				return f, false, nil
			}
		}
		return "", false, fmt.Errorf("%s: no package.json, nor an index file (%s): want a project, an npm package or a server file", src, tried("index"))
	case !errors.Is(err, os.ErrNotExist):
		return "", false, err
	}
	if filepath.Ext(src) == "" {
		for _, ext := range scriptExts {
			if isFile(src + ext) {
				return src + ext, false, nil
			}
		}
		return "", false, fmt.Errorf("%s: no such file, nor %s", src, tried(src))
	}
	return "", false, fmt.Errorf("%s: no such file", src)
}

func isFile(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir()
}

// jsBuild is one build: the entry, the project directory build.mjs runs in, and for a
// package its directory (build.mjs --package).
type jsBuild struct {
	node, entry, project, pkg, name, out string
	strict                               bool
	embedMax                             int
}

var scriptEntry = regexp.MustCompile(`mcpwasm/build\.mjs\s+(\S+)`)

// fromFile builds one server file: its project is the nearest directory up with a
// package.json (its node_modules, its "mcpwasm" requests), else the file's directory.
func (b *jsBuild) fromFile(file string) error {
	switch filepath.Ext(file) {
	case ".js", ".mjs", ".ts", ".mts", ".cjs", ".cts":
	default:
		return fmt.Errorf("%s: want a .js or .ts server file, a directory or npm:NAME", file)
	}
	abs, err := filepath.Abs(file)
	if err != nil {
		return err
	}
	b.entry, b.project = abs, filepath.Dir(abs)
	for d := filepath.Dir(abs); ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "package.json")); err == nil {
			b.project = d
			break
		}
		if d == filepath.Dir(d) {
			break
		}
	}
	b.name = strings.TrimSuffix(filepath.Base(abs), filepath.Ext(abs))
	return nil
}

// packageJSON is what build reads of a package.json.
type packageJSON struct {
	Name    string            `json:"name"`
	Version string            `json:"version"`
	Bin     json.RawMessage   `json:"bin"`
	Scripts map[string]string `json:"scripts"`
}

// fromDir builds a directory: an installed npm package (its "bin" entry; its own files
// embedded), or a project whose build script runs mcpwasm/build.mjs ENTRY (what npm run
// build does).
func (b *jsBuild) fromDir(dir string) error {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	raw, err := os.ReadFile(filepath.Join(abs, "package.json"))
	if err != nil {
		return fmt.Errorf("%s: not a project or package: %w", dir, err)
	}
	var p packageJSON
	if err := json.Unmarshal(raw, &p); err != nil {
		return fmt.Errorf("%s/package.json: %w", dir, err)
	}
	if m := scriptEntry.FindStringSubmatch(p.Scripts["build"]); m != nil {
		b.entry, b.project, b.name = filepath.Join(abs, m[1]), abs, p.Name
		return nil
	}
	if len(p.Bin) > 0 {
		return b.fromPackageDir(abs)
	}
	return fmt.Errorf(`%s: package.json has neither a "bin" entry (an npm server) nor a build script running mcpwasm/build.mjs (a project made by mcpwasm new)`, dir)
}

// fromPackageDir builds the installed package in dir from its "bin" script: the only one,
// or the one named like the package.
func (b *jsBuild) fromPackageDir(dir string) error {
	raw, err := os.ReadFile(filepath.Join(dir, "package.json"))
	if err != nil {
		return err
	}
	var p packageJSON
	if err := json.Unmarshal(raw, &p); err != nil {
		return fmt.Errorf("%s/package.json: %w", dir, err)
	}
	base := p.Name[strings.LastIndex(p.Name, "/")+1:]
	var bin string
	if json.Unmarshal(p.Bin, &bin) != nil {
		var bins map[string]string
		if err := json.Unmarshal(p.Bin, &bins); err != nil || len(bins) == 0 {
			return fmt.Errorf(`%s: package.json has no "bin" entry: mcpwasm build runs a package's server script`, dir)
		}
		names := make([]string, 0, len(bins))
		for n := range bins {
			names = append(names, n)
		}
		sort.Strings(names)
		bin = bins[names[0]]
		if v, ok := bins[base]; ok {
			bin = v
		} else if len(bins) > 1 {
			return fmt.Errorf("%s: several bin scripts (%s): build the one you want as a file", dir, strings.Join(names, ", "))
		}
	}
	b.entry, b.project, b.pkg = filepath.Join(dir, bin), dir, dir
	b.name = strings.TrimPrefix(base, "server-")
	return nil
}

// buildReport is what build.mjs writes to MCPWASM_BUILD_REPORT.
type buildReport struct {
	Requests map[string]json.RawMessage `json:"requests"`
	// FSFromArgs is "ro" or "rw" when the package's fs requests are its args' directories.
	FSFromArgs string   `json:"fsFromArgs"`
	Hosts      []string `json:"hosts"`
	Stubs      []string `json:"stubs"`
	Embedded   int      `json:"embedded"`
	Bytes      int      `json:"bytes"`
}

func (b *jsBuild) run(ctx context.Context, toolchain, tmp string, stdout, stderr io.Writer) (*buildReport, error) {
	reportPath := filepath.Join(tmp, "report.json")
	args := []string{filepath.Join(toolchain, "mcpwasm", "build.mjs"), b.entry, b.out}
	if b.strict {
		args = append(args, "--strict")
	}
	if b.pkg != "" {
		args = append(args, "--package", b.pkg, "--embed-max", fmt.Sprint(b.embedMax))
	}
	cmd := exec.CommandContext(ctx, b.node, args...)
	cmd.Dir = b.project
	cmd.Env = append(os.Environ(), "MCPWASM_BUILD_REPORT="+reportPath)
	cmd.Stdout, cmd.Stderr = stdout, stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("building %s: %w", b.entry, err)
	}
	raw, err := os.ReadFile(reportPath)
	if err != nil {
		return nil, fmt.Errorf("building %s: no report from build.mjs: %w", b.entry, err)
	}
	var r buildReport
	if err := json.Unmarshal(raw, &r); err != nil {
		return nil, fmt.Errorf("building %s: report: %w", b.entry, err)
	}
	return &r, nil
}

// jsToolchain returns a directory holding mcpwasm/ (this binary's build.mjs, shim and SDK
// files) and node_modules with the pinned esbuild, quickjs-wasi and zod: dir's node_modules
// when dir is set, else a cache directory installed once with npm ci from abi/js's lockfile
// (keyed by the files' digest, so an upgraded mcpwasm gets its own).
func jsToolchain(ctx context.Context, dir, tmp string, stderr io.Writer) (string, error) {
	files := jsguest.Files()
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	slices.Sort(names)
	write := func(root string) error {
		for _, n := range names {
			p := filepath.Join(root, "mcpwasm", filepath.FromSlash(n))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				return err
			}
			if err := os.WriteFile(p, files[n], 0o644); err != nil {
				return err
			}
		}
		return nil
	}
	if dir != "" {
		mods, err := filepath.Abs(filepath.Join(dir, "node_modules"))
		if err != nil {
			return "", err
		}
		if _, err := os.Stat(filepath.Join(mods, "esbuild")); err != nil {
			return "", fmt.Errorf("--toolchain %s: no node_modules/esbuild there (npm ci in a project made by mcpwasm new installs it)", dir)
		}
		root := filepath.Join(tmp, "toolchain")
		if err := write(root); err != nil {
			return "", err
		}
		if err := os.WriteFile(filepath.Join(root, "package.json"), jsguest.PackageJSON("mcpwasm-toolchain", "server.js"), 0o644); err != nil {
			return "", err
		}
		return root, os.Symlink(mods, filepath.Join(root, "node_modules"))
	}
	h := sha256.New()
	for _, n := range names {
		h.Write([]byte(n))
		h.Write(files[n])
	}
	h.Write(jsguest.Lockfile("mcpwasm-toolchain"))
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("no cache directory for the JavaScript toolchain (use --toolchain DIR): %w", err)
	}
	root := filepath.Join(cache, "mcpwasm", "js-toolchain", hex.EncodeToString(h.Sum(nil))[:16])
	if _, err := os.Stat(filepath.Join(root, "node_modules", ".mcpwasm-ok")); err == nil {
		return root, nil
	}
	if err := write(root); err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(root, "package.json"), jsguest.PackageJSON("mcpwasm-toolchain", "server.js"), 0o644); err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(root, "package-lock.json"), jsguest.Lockfile("mcpwasm-toolchain"), 0o644); err != nil {
		return "", err
	}
	fmt.Fprintf(stderr, "installing the JavaScript toolchain (esbuild, quickjs-wasi, zod; pinned) into %s\n", root)
	cmd := exec.CommandContext(ctx, "npm", "ci", "--no-audit", "--no-fund", "--loglevel=error")
	cmd.Dir, cmd.Stdout, cmd.Stderr = root, stderr, stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("npm ci of the JavaScript toolchain in %s: %w", root, err)
	}
	return root, os.WriteFile(filepath.Join(root, "node_modules", ".mcpwasm-ok"), nil, 0o644)
}

var npmName = regexp.MustCompile(`^(@[a-z0-9][a-z0-9._~-]*/)?[a-z0-9][a-z0-9._~-]*$`)

// npmInstall installs spec (NAME or NAME@VERSION) into a private project under tmp — from
// lockfile when set (npm ci) — without running install scripts, and returns the package's
// directory and the lockfile npm wrote.
func npmInstall(ctx context.Context, spec, lockfile, tmp string, stderr io.Writer) (string, []byte, error) {
	name, version := spec, "latest"
	if i := strings.LastIndex(spec, "@"); i > 0 {
		name, version = spec[:i], spec[i+1:]
	}
	if !npmName.MatchString(name) || version == "" {
		return "", nil, fmt.Errorf("npm:%s: want npm:NAME or npm:NAME@VERSION", spec)
	}
	proj := filepath.Join(tmp, "npm")
	if err := os.MkdirAll(proj, 0o755); err != nil {
		return "", nil, err
	}
	pkg, _ := json.MarshalIndent(map[string]any{"name": "mcpwasm-npm-build", "private": true, "dependencies": map[string]string{name: version}}, "", "  ")
	if err := os.WriteFile(filepath.Join(proj, "package.json"), pkg, 0o644); err != nil {
		return "", nil, err
	}
	npmArgs := []string{"install", "--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error"}
	if lockfile != "" {
		lb, err := os.ReadFile(lockfile)
		if err != nil {
			return "", nil, err
		}
		var l struct {
			Packages map[string]struct {
				Dependencies map[string]string `json:"dependencies"`
			} `json:"packages"`
		}
		if err := json.Unmarshal(lb, &l); err != nil {
			return "", nil, fmt.Errorf("--lock %s: %w", lockfile, err)
		}
		if _, ok := l.Packages[""].Dependencies[name]; !ok {
			return "", nil, fmt.Errorf("--lock %s: it does not pin %s", lockfile, name)
		}
		// The lockfile's own package.json: npm ci installs exactly what it pins.
		pkg, _ = json.MarshalIndent(map[string]any{"name": "mcpwasm-npm-build", "private": true, "dependencies": l.Packages[""].Dependencies}, "", "  ")
		if err := os.WriteFile(filepath.Join(proj, "package.json"), pkg, 0o644); err != nil {
			return "", nil, err
		}
		if err := os.WriteFile(filepath.Join(proj, "package-lock.json"), lb, 0o644); err != nil {
			return "", nil, err
		}
		npmArgs = []string{"ci", "--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error"}
	}
	cmd := exec.CommandContext(ctx, "npm", npmArgs...)
	var errb bytes.Buffer
	cmd.Dir, cmd.Stdout, cmd.Stderr = proj, stderr, io.MultiWriter(stderr, &errb)
	if err := cmd.Run(); err != nil {
		return "", nil, fmt.Errorf("npm %s %s: %w", npmArgs[0], spec, err)
	}
	lb, err := os.ReadFile(filepath.Join(proj, "package-lock.json"))
	if err != nil {
		return "", nil, err
	}
	return filepath.Join(proj, "node_modules", filepath.FromSlash(name)), lb, nil
}

// printConfigEntry prints a config (internal/config's format) serving out with grants
// for what it requests: the hosts its code names for net (else a placeholder), its env
// names, its fs directories (the host side a placeholder), the clock and random if asked.
func printConfigEntry(w io.Writer, out string, r *buildReport) {
	grants := map[string]any{}
	var hostDirs bool
	for k, v := range r.Requests {
		switch k {
		case "net":
			if len(r.Hosts) > 0 {
				grants["net"] = r.Hosts
			} else {
				grants["net"] = []string{"HOST.EXAMPLE"}
			}
		case "fs":
			var dirs []struct {
				Path string `json:"path"`
				RW   bool   `json:"rw"`
			}
			_ = json.Unmarshal(v, &dirs)
			var fs []map[string]any
			for _, d := range dirs {
				e := map[string]any{"host": "/path/on/this/machine", "guest": d.Path}
				if d.RW {
					e["rw"] = true
				}
				fs = append(fs, e)
			}
			grants["fs"] = fs
		default:
			grants[k] = v
		}
	}
	if r.FSFromArgs != "" {
		e := map[string]any{"host": "/path/on/this/machine", "guest": "/data"}
		if r.FSFromArgs == "rw" {
			e["rw"] = true
		}
		grants["fs"] = []map[string]any{e}
		hostDirs = true
	}
	entry := map[string]any{"path": out}
	if len(grants) > 0 {
		entry["grants"] = grants
	}
	if hostDirs {
		entry["args"] = []string{"/data"} // a package given its directories as arguments
	}
	b, _ := json.MarshalIndent(map[string]any{"guests": []any{entry}}, "", "  ")
	if len(r.Stubs) > 0 {
		fmt.Fprintf(w, "stubs linked (throw on use): %s\n", strings.Join(r.Stubs, ", "))
	}
	if r.Embedded > 0 {
		fmt.Fprintf(w, "embedded read-only: %d of the package's own files\n", r.Embedded)
	}
	fmt.Fprintf(w, "a config entry (mcpwasm serve --config FILE; edit the placeholders, narrow what you grant):\n%s\n", b)
}

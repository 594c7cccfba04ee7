package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpwasm/mcpwasm/internal/ship"
	"github.com/mcpwasm/mcpwasm/testdata/wat"
)

// expectConfigError runs each command with flags and --config cfg and wants exit ExitLoad and
// the one line "mcpwasm CMD: CFG: msg" on stderr.
func expectConfigError(t *testing.T, cmds, flags []string, cfg, msg string) {
	t.Helper()
	for _, cmd := range cmds {
		_, errOut, code := runCLI(append(append([]string{cmd}, flags...), "--config", cfg)...)
		if want := fmt.Sprintf("mcpwasm %s: %s: %s\n", cmd, cfg, msg); errOut != want || code != ExitLoad {
			t.Errorf("%s: exit %d, stderr %q\nwant exit %d, %q", cmd, code, errOut, ExitLoad, want)
		}
	}
}

// A value of the wrong type in the config is answered with its line, column and path, as a
// syntax error is (what newcomers hit: `"instances": "4"` read `"instances": type: 4 has
// type "string", want "integer"`, with no line and no guest).
func TestConfigTypeErrorNamesLine(t *testing.T) {
	for _, tc := range []struct{ name, body, want string }{
		{"instances a string", "{\"guests\": [\n  {\"name\": \"echo\", \"path\": \"echo.wasm\",\n   \"limits\": {\"instances\": \"4\"}}\n]}",
			"line 3 column 28: guests[0].limits.instances: want integer, got string"},
		{"net not a list", "{\"guests\": [\n  {\"path\": \"a.wasm\"},\n  {\"path\": \"b.wasm\", \"grants\": {\"net\": \"example.com\"}}\n]}",
			"line 3 column 40: guests[1].grants.net: want array, got string"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			expectConfigError(t, []string{"serve", "inspect", "pull"}, nil, writeConfig(t, tc.body), tc.want)
		})
	}
}

// A hyper-mcp configuration given where mcpwasm's is expected is named as one, with the
// command that converts it: JSON with "plugins" as a map or a list, and YAML.
func TestHyperMCPConfigGivenToServe(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{
		"map.json":  `{"plugins": {"time": {"url": "oci://ghcr.io/hyper-mcp-rs/time-plugin:latest"}}}`,
		"list.json": `{"plugins": [{"name": "time", "url": "oci://ghcr.io/hyper-mcp-rs/time-plugin:latest"}], "auths": {}}`,
		"config.yaml": "plugins:\n  time:\n    url: oci://ghcr.io/hyper-mcp-rs/time-plugin:latest\n" +
			"    runtime_config:\n      allowed_hosts: [\"example.com\"]\n",
	} {
		t.Run(name, func(t *testing.T) {
			p := filepath.Join(dir, name)
			if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
			expectConfigError(t, []string{"serve", "inspect", "pull"}, nil, p,
				"this is a hyper-mcp configuration, not an mcpwasm one: convert it with: mcpwasm import hyper-mcp "+p)
		})
	}
	// An mcpwasm config with a syntax error is still answered with the syntax error.
	p := writeConfig(t, "{\"guests\": [\n  {\"path\": \"a.wasm\",}\n]}")
	_, errOut, _ := runCLI("serve", "--config", p)
	if want := fmt.Sprintf("mcpwasm serve: %s: line 2 column 21: invalid character '}' looking for beginning of object key string\n", p); errOut != want {
		t.Errorf("stderr %q\nwant %q", errOut, want)
	}
}

// The lock beside a config serves every config in that directory. A second config there
// naming a guest the lock does not list is told which lock and the command that adds it; a
// missing local file is told it is missing (both read "run mcpwasm pull" before).
func TestLockOfTheDirectoryNamesTheCause(t *testing.T) {
	dir, store := t.TempDir(), t.TempDir()
	write := func(name string, b []byte) string {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	write("echo.wasm", wat.Echo)
	write("other.wasm", wat.Echo)
	a := write("a.json", []byte(`{"guests": [{"path": "echo.wasm"}]}`))
	if _, errOut, code := runCLI("pull", "--store", store, "--config", a); code != ExitOK {
		t.Fatalf("pull: exit %d: %s", code, errOut)
	}
	lock := filepath.Join(dir, ship.LockName)
	for _, tc := range []struct{ name, body, want string }{
		{"missing file", `{"guests": [{"path": "missing.wasm"}]}`,
			"guests[0].path: open " + filepath.Join(dir, "missing.wasm") + ": no such file or directory"},
		{"file not locked", `{"guests": [{"path": "other.wasm"}]}`,
			`guests[0]: guest other.wasm is not in ` + lock + ", the lock of every config in " + dir + ": run mcpwasm pull --config CONFIG to lock it"},
		{"URL not locked", `{"guests": [{"name": "web", "path": "https://example.invalid/web.wasm"}]}`,
			`guests[0]: guest "web" (https://example.invalid/web.wasm) is not in ` + lock + ", the lock of every config in " + dir + ": run mcpwasm pull --config CONFIG to lock it"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := write(strings.ReplaceAll(tc.name, " ", "-")+".json", []byte(tc.body))
			expectConfigError(t, []string{"serve", "inspect"}, []string{"--store", store}, b, strings.ReplaceAll(tc.want, "CONFIG", b))
		})
	}
}

// import names a hyper-mcp field of the wrong type by line, column and path, in JSON and YAML.
func TestImportTypeErrorNamesLine(t *testing.T) {
	dir := t.TempDir()
	for name, tc := range map[string]struct{ body, want string }{
		"config.json": {"{\"plugins\": {\n  \"time\": {\"url\": \"oci://ghcr.io/x/time:latest\",\n    \"runtime_config\": {\"allowed_hosts\": \"example.com\"}}}}",
			"line 3 column 41: plugins.time.runtime_config.allowed_hosts: want array, got string"},
		"config.yaml": {"plugins:\n  - name: time\n    url: oci://ghcr.io/x/time:latest\n    runtime_config:\n      memory_limit: 4\n",
			"line 5 column 21: plugins[0].runtime_config.memory_limit: want string, got integer"},
	} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(tc.body), 0o644); err != nil {
			t.Fatal(err)
		}
		out, errOut, code := runCLI("import", "hyper-mcp", p)
		if want := fmt.Sprintf("mcpwasm import: %s: %s\n", p, tc.want); errOut != want || code != ExitError || out != "" {
			t.Errorf("%s: exit %d, stdout %q, stderr %q\nwant exit %d, %q", name, code, out, errOut, ExitError, want)
		}
	}
}

// A config with several independent mistakes is answered with all of them in one run, one
// line each, naming the file, line, column and field, in the file's order; the exit code is
// a single mistake's. Every command that reads a config does so.
func TestConfigErrorsAllAtOnce(t *testing.T) {
	cfg := writeConfig(t, `{
  "guests": [
    {"path": "a.wasm", "limitz": {}},
    {"path": "b.wasm", "limits": {"timeout_ms": "10s"}},
    {"path": "c.wasm", "grants": {"net": ["a.test"]}, "tools": {"t": {"grants": {"net": ["b.test"]}}}}
  ]
}`)
	lines := []string{
		`line 3 column 24: unknown key "limitz" in guests[0] (did you mean "limits"?)`,
		`line 4 column 49: guests[1].limits.timeout_ms: want integer, got string`,
		`line 5 column 81: guests[2].tools.t.grants: net "b.test" is not granted to the guest`,
	}
	guest := filepath.Join(filepath.Dir(cfg), "a.wasm") // inspect GUEST --config reads the guest first
	if err := os.WriteFile(guest, wat.Echo, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"serve"}, {"inspect"}, {"pull"}, {"inspect", guest}} {
		_, errOut, code := runCLI(append(args, "--config", cfg)...)
		want := ""
		for _, l := range lines {
			want += fmt.Sprintf("mcpwasm %s: %s: %s\n", args[0], cfg, l)
		}
		if errOut != want || code != ExitLoad {
			t.Errorf("%s: exit %d, stderr:\n%s\nwant exit %d, stderr:\n%s", args, code, errOut, ExitLoad, want)
		}
	}
}

// Every guest file that cannot be read is named in one run, a line each in config order; the
// guests between them are still read.
func TestConfigMissingFilesAllAtOnce(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "echo.wasm"), wat.Echo, 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(dir, "mcpwasm.json")
	if err := os.WriteFile(cfg, []byte(`{"guests": [{"path": "a.wasm"}, {"path": "echo.wasm"}, {"path": "c.wasm"}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, cmd := range []string{"serve", "inspect"} {
		_, errOut, code := runCLI(cmd, "--cache-dir", t.TempDir(), "--config", cfg)
		want := fmt.Sprintf("mcpwasm %[1]s: %[2]s: guests[0].path: open %[3]s: no such file or directory\n"+
			"mcpwasm %[1]s: %[2]s: guests[2].path: open %[4]s: no such file or directory\n",
			cmd, cfg, filepath.Join(dir, "a.wasm"), filepath.Join(dir, "c.wasm"))
		if errOut != want || code != ExitLoad {
			t.Errorf("%s: exit %d, stderr:\n%s\nwant exit %d, stderr:\n%s", cmd, code, errOut, ExitLoad, want)
		}
	}
}

package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/runtime/policy"
)

// inspect lists a guest's resources and prompts in its human form too (they were in --json
// only), and `inspect --config FILE` without a guest shows every guest of the config with
// its effective grants (it was "missing GUEST.wasm").
func TestInspectServedAndWholeConfig(t *testing.T) {
	calc, err := filepath.Abs("../../guests/calc.wasm")
	if err != nil {
		t.Fatal(err)
	}
	out, errOut, code := runCLI("inspect", "--cache-dir", cacheDir, calc)
	want := "resources (1):\n  calc://reference  reference — calc language reference (text/markdown)\n" +
		"    Operators, functions, constants and limits of the calc tool.\n" +
		"prompts (1):\n  explain(expression) — Explain an expression\n"
	if code != ExitOK || !strings.Contains(out, want) {
		t.Errorf("inspect calc: exit %d, stderr %q, output lacks %q:\n%s", code, errOut, want, out)
	}

	cfg := writeConfig(t, fmt.Sprintf(`{"guests": [{"path": %q, "grants": {"clock": true}}, {"path": %q, "name": "again"}]}`, calc, fixturePath))
	out, errOut, code = runCLI("inspect", "--cache-dir", cacheDir, "--config", cfg)
	if code != ExitOK {
		t.Fatalf("inspect --config: exit %d, stderr %q", code, errOut)
	}
	for _, w := range []string{"guest calc ", "\nguest again ", "    granted:   clock\n    effective: none\n", "not granted: none\n", "prompts (1):\n"} {
		if !strings.Contains(out, w) {
			t.Errorf("inspect --config output lacks %q:\n%s", w, out)
		}
	}
	out, _, code = runCLI("inspect", "--cache-dir", cacheDir, "--config", cfg, "--json")
	var all []inspectOutput
	if err := json.Unmarshal([]byte(out), &all); code != ExitOK || err != nil || len(all) != 2 || all[0].Name != "calc" || all[1].Name != "again" || all[0].Grants == nil {
		t.Errorf("inspect --config --json: exit %d, %v, %d guests:\n%s", code, err, len(all), out)
	}
	// Without a guest and without a config: the usage error says both ways.
	if _, errOut, code := runCLI("inspect"); code != ExitUsage || !strings.Contains(errOut, "missing GUEST.wasm (or --config FILE") {
		t.Errorf("inspect: exit %d, stderr %q", code, errOut)
	}
}

// inspect's grants and requests lines: every kind, in one fixed order; nothing is "none".
func TestDescribeCapabilities(t *testing.T) {
	g := policy.Grants{Net: []string{"a.example", "*.b.example"}, Env: []string{"HOME"}, Clock: true, Random: true, MCP: []string{"up"},
		Exec:     []policy.Exec{{Name: "git", Path: "/usr/bin/git", Args: []string{"-C", "/srv"}}, {Path: "/bin/ls"}},
		FS:       []policy.FS{{Guest: "/data", Host: "/srv/data", RW: true}, {Guest: "/ro", Host: "/srv/ro"}},
		Sampling: true, Elicitation: true, Roots: true}
	if got, want := describeGrants(g), "net a.example, *.b.example; exec git=/usr/bin/git -C /srv, /bin/ls; fs /data=/srv/data (rw), /ro=/srv/ro; env HOME; clock; random; mcp up; sampling; elicitation; roots"; got != want {
		t.Errorf("describeGrants = %q\nwant %q", got, want)
	}
	r := abi.Requests{Net: []string{"a.example"}, Exec: []string{"/bin/ls"}, FS: []abi.FSRequest{{Path: "/data", RW: true}, {Path: "/ro"}},
		Env: []string{"HOME"}, Random: true, Roots: true}
	if got, want := describeRequests(r), "net a.example; exec /bin/ls; fs /data (rw), /ro; env HOME; random; roots"; got != want {
		t.Errorf("describeRequests = %q\nwant %q", got, want)
	}
	if got := describeGrants(policy.Grants{}); got != "none" {
		t.Errorf("describeGrants of nothing = %q, want none", got)
	}
}

// inspect serves nothing, so a load's log lines stay off its stderr unless --log-level asks
// for them (an Extism plugin's "not from a snapshot" info line printed on every inspect).
func TestInspectQuietAtInfo(t *testing.T) {
	plugin, err := filepath.Abs("../../runtime/internal/kind/extism/testdata/v2.wasm")
	if err != nil {
		t.Fatal(err)
	}
	out, errOut, code := runCLI("inspect", "--cache-dir", cacheDir, plugin)
	if code != ExitOK || !strings.HasPrefix(out, "guest v2\n") || !strings.Contains(out, "kind: extism v2\n") || errOut != "" {
		t.Errorf("inspect v2.wasm: exit %d, stderr %q, output:\n%s", code, errOut, out)
	}
	_, errOut, code = runCLI("inspect", "--cache-dir", cacheDir, "--log-level", "debug", plugin)
	if want := `msg="guest loaded" guest=v2`; code != ExitOK || !strings.Contains(errOut, want) {
		t.Errorf("inspect --log-level debug: exit %d, stderr lacks %q:\n%s", code, want, errOut)
	}
}

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpwasm/mcpwasm/testdata/wat"
)

// clashConfig writes echo.wasm and fixture.wasm (both have a tool "echo") beside a config
// whose guests are body and returns the config's path.
func clashConfig(t *testing.T, body string) string {
	t.Helper()
	dir := t.TempDir()
	for name, b := range map[string][]byte{"echo.wasm": wat.Echo, "fixture.wasm": wat.Fixture, "mcpwasm.json": []byte(body)} {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(dir, "mcpwasm.json")
}

const prefixAdvice = `; to serve both, give one a tool prefix (config: "tool_prefix" of the guest; runtime.GuestConfig.ToolPrefix)`

// inspect --config names the tool name clash that serve refuses to start with, in serve's
// words and with serve's exit code, after describing every guest (which shows what to
// rename); every clash at once, in both. With a tool_prefix there is none.
func TestInspectConfigReportsToolNameClash(t *testing.T) {
	one := `tool "echo" of guest "b" is already provided by guest "a"` + prefixAdvice
	two := `tool "echo" of guest "c" is already provided by guest "a"` + prefixAdvice
	for _, tc := range []struct {
		name, guests string
		want         []string
	}{
		{"two guests", `{"name": "a", "path": "echo.wasm"}, {"name": "b", "path": "fixture.wasm"}`, []string{one}},
		{"three guests", `{"name": "a", "path": "echo.wasm"}, {"name": "b", "path": "fixture.wasm"}, {"name": "c", "path": "echo.wasm"}`, []string{one, two}},
		{"prefixed", `{"name": "a", "path": "echo.wasm"}, {"name": "b", "path": "fixture.wasm", "tool_prefix": "b_"}, {"name": "c", "path": "echo.wasm", "tool_prefix": "c_"}`, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := clashConfig(t, `{"guests": [`+tc.guests+`]}`)
			wantCode := ExitLoad
			if tc.want == nil {
				wantCode = ExitOK
			}
			lines := func(cmd string) string {
				var s strings.Builder
				for _, l := range tc.want {
					s.WriteString("mcpwasm " + cmd + ": " + l + "\n")
				}
				return s.String()
			}
			cache := t.TempDir()
			_, errOut, code := runCLI("serve", "--log-level", "error", "--cache-dir", cache, "--config", cfg)
			if want := lines("serve"); errOut != want || code != wantCode {
				t.Errorf("serve: exit %d, stderr:\n%s\nwant exit %d, stderr:\n%s", code, errOut, wantCode, want)
			}
			out, errOut, code := runCLI("inspect", "--cache-dir", cache, "--config", cfg)
			if want := lines("inspect"); errOut != want || code != wantCode {
				t.Errorf("inspect: exit %d, stderr:\n%s\nwant exit %d, stderr:\n%s", code, errOut, wantCode, want)
			}
			if !strings.HasPrefix(out, "guest a 1.0.0\n") || !strings.Contains(out, "\nguest b 1.0.0\n") {
				t.Errorf("inspect did not describe the guests:\n%s", out)
			}
			out, errOut, code = runCLI("inspect", "--json", "--cache-dir", cache, "--config", cfg)
			var described []inspectOutput
			if err := json.Unmarshal([]byte(out), &described); err != nil || len(described) != strings.Count(tc.guests, "{") {
				t.Errorf("inspect --json: %v, %d guests:\n%s", err, len(described), out)
			}
			if want := lines("inspect"); errOut != want || code != wantCode {
				t.Errorf("inspect --json: exit %d, stderr:\n%s\nwant exit %d, stderr:\n%s", code, errOut, wantCode, want)
			}
		})
	}
}

package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/tools/txtar"
)

// TestTranscripts replays testdata/transcripts/*.txtar against `mcpwasm serve`: the input
// section is written to stdin line by line ("#await N" waits until stdout has N lines, which
// keeps concurrent replies in a fixed order; there is no fixed-time pause), stdin is closed,
// and stdout must equal the output section exactly. In the args section $FIXTURE is
// testdata/wat/fixture.wasm, $ECHO testdata/wat/echo.wasm and $CONFORMANCE the Go guest
// testdata/guests/conformance (built on first use). A config section is written to a file
// whose path replaces $CONFIG in the args, after $ASK in it is replaced by the path of
// guests/ask built to wasm. Run with -args -update to rewrite the outputs.
func TestTranscripts(t *testing.T) {
	files, err := filepath.Glob("testdata/transcripts/*.txtar")
	if err != nil || len(files) == 0 {
		t.Fatalf("no transcripts: %v", err)
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
			ar, err := txtar.ParseFile(file)
			if err != nil {
				t.Fatal(err)
			}
			sections := map[string]string{}
			for _, f := range ar.Files {
				sections[f.Name] = string(f.Data)
			}
			echo, err := filepath.Abs("../../testdata/wat/echo.wasm")
			if err != nil {
				t.Fatal(err)
			}
			conf := ""
			if c, ok := sections["config"]; ok {
				conf = writeConfig(t, strings.ReplaceAll(c, "$ASK", askWasm(t)))
			}
			argLine := sections["args"]
			if strings.Contains(argLine, "$CONFORMANCE") {
				argLine = strings.ReplaceAll(argLine, "$CONFORMANCE", conformanceGuest(t))
			}
			args := strings.Fields(strings.NewReplacer("$FIXTURE", fixturePath, "$ECHO", echo, "$CONFIG", conf).Replace(argLine))
			cmd := exec.Command(binPath, append([]string{"serve", "--cache-dir", cacheDir}, args...)...)
			stdin, err := cmd.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			var stdout, stderr lockedBuffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			for _, line := range strings.Split(strings.TrimSuffix(sections["input"], "\n"), "\n") {
				if n, ok := strings.CutPrefix(line, "#await "); ok {
					want, err := strconv.Atoi(n)
					if err != nil {
						t.Fatal(err)
					}
					waitOutput(t, &stdout, fmt.Sprintf("%d lines on stdout (stderr:\n%s)", want, &stderr), func(out string) bool {
						return strings.Count(out, "\n") >= want
					})
					continue
				}
				if _, err := stdin.Write([]byte(line + "\n")); err != nil {
					t.Fatal(err)
				}
			}
			stdin.Close()
			if err := cmd.Wait(); err != nil {
				t.Fatalf("serve: %v\n%s", err, stderr.String())
			}
			if *update {
				for i := range ar.Files {
					if ar.Files[i].Name == "output" {
						ar.Files[i].Data = []byte(stdout.String())
					}
				}
				if err := os.WriteFile(file, txtar.Format(ar), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			if diff := cmp.Diff(sections["output"], stdout.String()); diff != "" {
				t.Errorf("stdout (-want +got):\n%s\nstderr:\n%s", diff, stderr.String())
			}
		})
	}
}

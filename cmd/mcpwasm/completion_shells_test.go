package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpwasm/mcpwasm/internal/testenv"
)

// The bash script completes new's first argument with the languages (it offered file names).
func TestCompletionBashNewLanguages(t *testing.T) {
	out, _, code := runCLI("completion", "bash")
	bash, err := exec.LookPath("bash")
	if code != ExitOK {
		t.Fatalf("completion bash: exit %d", code)
	}
	if err != nil {
		testenv.Skip(t, "no bash: %v", err)
	}
	script := out + `
COMP_WORDS=(mcpwasm new ""); COMP_CWORD=2; _mcpwasm; echo "${COMPREPLY[*]}"
COMP_WORDS=(mcpwasm completion ""); COMP_CWORD=2; _mcpwasm; echo "${COMPREPLY[*]}"
`
	if got, err := exec.Command(bash, "-c", script).CombinedOutput(); err != nil || string(got) != "go c rust wat ts js\nbash zsh fish\n" {
		t.Errorf("completion: %v\n%s", err, got)
	}
}

// `mcpwasm completion zsh` and `fish` print scripts that complete commands, flags, new's
// languages, the shells and, after --, a command (they were refused: bash only). Each runs
// in its shell where one is installed; zsh's completion builtins are stubbed to print what
// they are given.
func TestCompletionZshFish(t *testing.T) {
	zshScript, _, code := runCLI("completion", "zsh")
	if code != ExitOK || !strings.HasPrefix(zshScript, "#compdef mcpwasm\n") {
		t.Fatalf("completion zsh: exit %d:\n%s", code, zshScript)
	}
	fishScript, _, code := runCLI("completion", "fish")
	if code != ExitOK || !strings.Contains(fishScript, "complete -c mcpwasm -n '__fish_seen_subcommand_from call' -l server-logs\n") {
		t.Fatalf("completion fish: exit %d:\n%s", code, fishScript)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.wasm"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Run("zsh", func(t *testing.T) {
		zsh, err := exec.LookPath("zsh")
		if err != nil {
			testenv.Skip(t, "no zsh (Debian package zsh; .ci/install-toolchains.sh installs it)")
		}
		p := filepath.Join(dir, "_mcpwasm")
		if err := os.WriteFile(p, []byte(zshScript), 0o644); err != nil {
			t.Fatal(err)
		}
		harness := `
compadd() { shift; print -r -- "$@" }
_files() { print FILES }
_normal() { print NORMAL ${words[1]} $CURRENT }
compdef() { print COMPDEF "$@" }
source ` + p + `
words=(mcpwasm ser); CURRENT=2; _mcpwasm
words=(mcpwasm new ""); CURRENT=3; _mcpwasm
words=(mcpwasm call --server-l); CURRENT=3; _mcpwasm
words=(mcpwasm call x -- mcpw); CURRENT=5; _mcpwasm
words=(mcpwasm serve x); CURRENT=3; _mcpwasm
words=(mcpwasm completion ""); CURRENT=3; _mcpwasm
`
		out, err := exec.Command(zsh, "-f", "-c", harness).CombinedOutput()
		lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
		if err != nil || len(lines) != 7 || lines[0] != "COMPDEF _mcpwasm mcpwasm" ||
			lines[1] != strings.Join(commandNames(), " ") || lines[2] != "go c rust wat ts js" ||
			!strings.Contains(" "+lines[3]+" ", " --server-logs ") || lines[4] != "NORMAL mcpw 1" ||
			lines[5] != "FILES" || lines[6] != "bash zsh fish" {
			t.Errorf("zsh: %v\n%s", err, out)
		}
	})
	t.Run("fish", func(t *testing.T) {
		fish, err := exec.LookPath("fish")
		if err != nil {
			testenv.Skip(t, "no fish (Debian package fish; .ci/install-toolchains.sh installs it)")
		}
		p := filepath.Join(dir, "mcpwasm.fish")
		if err := os.WriteFile(p, []byte(fishScript), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, tt := range []struct{ line, want string }{
			{"mcpwasm ser", "serve\n"},
			{"mcpwasm new ", "c\ngo\njs\nrust\nts\nwat\n"},
			{"mcpwasm call --server-l", "--server-logs\n"},
			{"mcpwasm completion ", "bash\nfish\nzsh\n"},
			{"mcpwasm serve a.", "a.wasm\n"},
		} {
			cmd := exec.Command(fish, "--no-config", "-c", "source "+p+"; complete -C '"+tt.line+"'")
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "HOME="+dir, "XDG_CONFIG_HOME="+dir, "XDG_DATA_HOME="+dir)
			if out, err := cmd.CombinedOutput(); err != nil || string(out) != tt.want {
				t.Errorf("fish %q: %v\n%q, want %q", tt.line, err, out, tt.want)
			}
		}
	})
}

package main

import (
	"bytes"
	"errors"
	"io"
	"os/exec"
	"syscall"
	"testing"
)

// terminalText is what the fresh-eyes reproducer had a tool return: clear the screen, set
// the window title, colour, a C1 control and a right-to-left override.
const terminalText = "before\x1b[2J\x1b]0;PWNED\x07\x1b[31mred\u0085\u202eevil"

// TestCallTextOnTerminal: `mcpwasm call` shows a tool's text on a terminal with the
// characters a terminal would obey escaped (termtext), so the server can neither clear the
// screen nor retitle the window nor reorder the line; to a pipe the bytes are the server's.
// The tool is the bundled text guest's echo, which returns its text unchanged.
func TestCallTextOnTerminal(t *testing.T) {
	args := []string{"call", "echo", `{"text":"before\u001b[2J\u001b]0;PWNED\u0007\u001b[31mred\u0085\u202eevil"}`,
		"--", binPath, "serve", "--cache-dir", cacheDir}
	t.Run("pipe", func(t *testing.T) {
		out, code := runClient(t, args...)
		if want := terminalText + "\n"; code != 0 || out != want {
			t.Errorf("call to a pipe: exit %d, output %q, want %q", code, out, want)
		}
		out, code = runClient(t, append([]string{"call", "--json"}, args[1:]...)...)
		if want := `"text": "before\u001b[2J\u001b]0;PWNED\u0007\u001b[31mred` + "\u0085\u202e" + `evil"`; code != 0 || !bytes.Contains([]byte(out), []byte(want)) {
			t.Errorf("call --json: exit %d, output %q, want it to hold %q", code, out, want)
		}
	})
	t.Run("terminal", func(t *testing.T) {
		pty, tty := openPTY(t)
		cmd := exec.CommandContext(testContext(t), binPath, args...)
		var stderr lockedBuffer
		cmd.Stdout, cmd.Stderr = tty, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("call: %v\n%s", err, stderr.String())
		}
		tty.Close() // the reads below end (EIO) once nothing holds the terminal open
		out, err := io.ReadAll(pty)
		if err != nil && !errors.Is(err, syscall.EIO) {
			t.Fatal(err)
		}
		// The terminal's output processing turns "\n" into "\r\n".
		if want := `before\x1b[2J\x1b]0;PWNED\x07\x1b[31mred\u0085\u202eevil` + "\r\n"; string(out) != want {
			t.Errorf("call on a terminal wrote %q, want %q", out, want)
		}
	})
}

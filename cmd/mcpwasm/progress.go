package main

import (
	"io"
	"os"

	"golang.org/x/term"
)

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	// A character device is not necessarily a terminal (/dev/null is one): ask the terminal
	// driver.
	return term.IsTerminal(int(f.Fd()))
}

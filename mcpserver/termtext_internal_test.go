package mcpserver

import (
	"testing"

	"github.com/mcpwasm/mcpwasm/internal/termtext"
)

// The characters `mcpwasm call` escapes on a terminal (termtext.IsControl) are all hidden
// in tool definitions (isHiddenRune, which is built on termtext's table): the terminal rule
// is the hidden-text rule narrowed to what a terminal obeys, never a second, diverging list.
// The count holds termtext's table to C0 but \n and \t, DEL, C1 and the bidi controls.
func TestTerminalControlsAreHidden(t *testing.T) {
	n := 0
	for r := rune(0); r <= 0x10FFFF; r++ {
		if termtext.IsControl(r) {
			n++
			if !isHiddenRune(r) {
				t.Errorf("U+%04X: escaped on a terminal but not hidden in tool definitions", r)
			}
		}
	}
	if want := 0x20 - 2 + 1 + 0x20 + 5 + 4; n != want { // C0 but \n and \t, DEL, C1, bidi
		t.Errorf("%d terminal controls, want %d", n, want)
	}
}

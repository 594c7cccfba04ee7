package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/term"
)

// progressPrinter shows the progress notifications of `mcpwasm call` (which sends a progress
// token, MCP "Utilities › Progress") on stderr: on a terminal as one bar redrawn in place,
// otherwise as one line per notification.
type progressPrinter struct {
	w   io.Writer
	tty bool

	mu    sync.Mutex
	drawn bool // a bar is on the terminal's current line
}

func newProgressPrinter(w io.Writer) *progressPrinter {
	return &progressPrinter{w: w, tty: isTerminal(w)}
}

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

// done ends the bar's line, so what follows starts on a fresh one.
func (p *progressPrinter) done() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.drawn {
		fmt.Fprintln(p.w)
		p.drawn = false
	}
}

// notify is CallToolExact's progress callback: the call's notifications, in order, before
// its result.
func (p *progressPrinter) notify(n *mcp.ProgressNotificationParams) {
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprint(p.w, formatProgress(n.Progress, n.Total, n.Message, p.tty))
	p.drawn = p.tty
}

// formatProgress renders one notification: for a terminal "\r[#####     ]  50% msg" with
// the line cleared after it, else "progress: 5/10 msg\n" (or "progress: 5 msg" without a
// total). Control characters in msg are replaced, so a server cannot move the cursor.
func formatProgress(progress, total float64, msg string, tty bool) string {
	msg = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			return ' '
		}
		return r
	}, msg)
	if !tty {
		s := "progress: " + fmt.Sprint(progress)
		if total > 0 {
			s += "/" + fmt.Sprint(total)
		}
		if msg != "" {
			s += " " + msg
		}
		return s + "\n"
	}
	const width = 30
	var bar string
	if total > 0 {
		frac := min(max(progress/total, 0), 1)
		n := int(frac * width)
		bar = fmt.Sprintf("[%s%s] %3d%%", strings.Repeat("#", n), strings.Repeat(" ", width-n), int(frac*100))
	} else {
		bar = fmt.Sprintf("[%v]", progress)
	}
	if msg != "" {
		if r := []rune(msg); len(r) > 60 {
			msg = string(r[:60]) + "…"
		}
		bar += " " + msg
	}
	return "\r" + bar + "\x1b[K"
}

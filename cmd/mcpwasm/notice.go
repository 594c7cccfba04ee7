package main

import (
	"bytes"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/mcpwasm/mcpwasm/runtime"
)

// Notices: what a newcomer's first hour was silent about. A first start compiling guests,
// a stdio server waiting for a client on a terminal, and the warnings of a server that
// `mcpwasm call` spawns (which it otherwise hides).

// compileNoticeMsg is the log message of a load still running after compileNoticeAfter: on a
// first start that is the compile to machine code. Client commands show it from the servers
// they spawn (serverNotices).
const compileNoticeMsg = "compiling a guest to machine code: the first start takes seconds per guest (a 4 MB Go guest: 2-6 s on 2 cores); the code is cached, so later starts take under a second"

// compileNoticeAfter is how long a guest's load may run before compileNoticeMsg is logged: a
// load from the cache takes tens of milliseconds. Tests set it to 0 (logged before loading).
var compileNoticeAfter = time.Second

// compileStillMsg is logged every compileStillEvery while a load goes on after its notice.
// A client that spawned this server and waits for its answer to server/discover takes a
// write to the server's stderr as a sign that it is starting (package upstream), so a first
// start compiling for longer than the client's discover deadline (5 s) on a loaded machine is
// not stopped and started again, which compiled everything twice.
const compileStillMsg = "still compiling"

// compileStillEvery is how often compileStillMsg is logged: under upstream's default discover
// deadline (5 s). Tests shorten it.
var compileStillEvery = 3 * time.Second

// loadNoticed runs load, logging compileNoticeMsg for source if it takes longer than
// compileNoticeAfter, then compileStillMsg every compileStillEvery until it ends.
func loadNoticed(logger *slog.Logger, source string, load func() (*runtime.Guest, error)) (*runtime.Guest, error) {
	notice := func() { logger.Info(compileNoticeMsg, "source", source) }
	after, noticed := compileNoticeAfter, compileNoticeAfter <= 0
	if noticed {
		notice()
		after = compileStillEvery
	}
	start := time.Now()
	done, finished := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(finished)
		t := time.NewTimer(after)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				if !noticed {
					notice()
					noticed = true
				} else {
					logger.Info(compileStillMsg, "source", source, "seconds", int(time.Since(start).Seconds()))
				}
				t.Reset(compileStillEvery)
			}
		}
	}()
	// A line that has begun is finished before loadNoticed returns: the caller may read or
	// close what the logger writes to as soon as the load is done.
	defer func() {
		close(done)
		<-finished
	}()
	return load()
}

// stdinHint is what serve says on stderr when its stdin is a terminal: nothing else tells a
// person who typed `mcpwasm serve` that it is waiting for an MCP client.
const stdinHint = "mcpwasm serve speaks MCP (JSON-RPC, one message a line) on stdin and stdout, for an MCP client to start it; to try the tools by hand: mcpwasm tools -- mcpwasm serve [ARGS], mcpwasm call TOOL '{...}' -- mcpwasm serve [ARGS]. Ctrl-D quits."

// hintIfTerminal writes stdinHint to stderr when stdin is a terminal.
func hintIfTerminal(stdin io.Reader, stderr io.Writer) {
	if w, ok := stdin.(io.Writer); ok && isTerminal(w) {
		fmt.Fprintln(stderr, stdinHint)
	}
}

// serverNotices passes on, to out, the lines of a spawned server's stderr that its user
// should see even without --server-logs: warnings and errors (a requested capability not
// granted, a withheld tool) and the compile notice. Each is prefixed "server: ".
type serverNotices struct {
	out io.Writer

	mu   sync.Mutex
	line []byte // a partial line
}

func (n *serverNotices) Write(p []byte) (int, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.line = append(n.line, p...)
	for {
		i := bytes.IndexByte(n.line, '\n')
		if i < 0 {
			break
		}
		if l := string(n.line[:i]); isNotice(l) {
			fmt.Fprintf(n.out, "server: %s\n", l)
		}
		n.line = n.line[i+1:]
	}
	if len(n.line) > 64<<10 { // a line this long is no notice: drop it
		n.line = n.line[:0]
	}
	return len(p), nil
}

// isNotice reports whether a server's stderr line (slog's text format) is a warning, an
// error or the compile notice.
func isNotice(l string) bool {
	return strings.Contains(l, " level=WARN ") || strings.Contains(l, " level=ERROR ") ||
		strings.Contains(l, fmt.Sprintf(" msg=%q", compileNoticeMsg))
}

// withNotices is the stderr a client command gives the server it spawns: the tail kept for a
// failed start, plus the notices on the user's stderr.
func withNotices(tail io.Writer, stderr io.Writer) io.Writer {
	return io.MultiWriter(tail, &serverNotices{out: stderr})
}

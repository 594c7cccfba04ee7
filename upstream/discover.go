package upstream

import "io"

// probe carries signs of a live server to the server/discover probe's silence deadline
// (sendMiddleware), so that the deadline measures a live server's silence rather than how long
// a loaded machine takes to answer at all: over HTTP the response headers of the probe's POST
// (headerTransport), over stdio each write to the server's stderr (liveWriter).
type probe struct {
	answered chan struct{} // one pending signal at most
	// atOnce: the deadline runs from the probe's send, and each signal restarts it (stdio,
	// where a signal is a write to the server's stderr); otherwise it starts at the first
	// signal (HTTP, where a signal is the HTTP answer to the probe's POST).
	atOnce bool
}

func newProbe() *probe { return &probe{answered: make(chan struct{}, 1)} }

// newStdioProbe is a stdio server's probe: signalled by liveWriter.
func newStdioProbe() *probe {
	p := newProbe()
	p.atOnce = true
	return p
}

// liveWriter passes a stdio server's stderr on to w (nil: discards it) and takes each write
// as a sign that the server is alive and starting, not ignoring server/discover: mcpwasm serve
// logs while it compiles its guests, which on a first start on a loaded machine takes longer
// than the discover deadline, and a server given up on is stopped and started again.
type liveWriter struct {
	w io.Writer
	p *probe
}

func (l liveWriter) Write(b []byte) (int, error) {
	l.p.answer()
	if l.w == nil {
		return len(b), nil
	}
	return l.w.Write(b)
}

// answer records an HTTP answer to a server/discover POST; a nil probe ignores it.
func (p *probe) answer() {
	if p == nil {
		return
	}
	select {
	case p.answered <- struct{}{}:
	default:
	}
}

package upstream

// probe carries the HTTP-level answers to the server/discover probe (headerTransport: the
// response headers of its POST arrived) to the probe's silence deadline (sendMiddleware), so
// that the deadline measures a live server's silence rather than how long a loaded machine
// takes to answer at all.
type probe struct {
	answered chan struct{} // one pending signal at most
}

func newProbe() *probe { return &probe{answered: make(chan struct{}, 1)} }

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

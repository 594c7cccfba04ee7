package sandbox

import (
	"fmt"
	"net"
	"net/netip"
	"strconv"
	"strings"
)

// The host-pattern grammar of net grants and requests:
//
//	pattern = host [ ":" port ] | "[" ipv6 "]" [ ":" port ]
//	host    = name | ip | "*." suffix | "*"
//	port    = 1…65535 | "*"
//
// Hosts compare lowercase, without a trailing dot, IP literals in canonical form. "*.suffix"
// matches names ending in ".suffix", not the suffix itself. Without a port only the
// scheme's default port (80 for http, 443 for https) matches.

// hostPattern is a parsed net grant or request: host (lowercase, no trailing dot), wildcard
// for "*.suffix" (host holds the suffix) or any for "*", and port (0 = the scheme's default
// port, anyPort for "host:*").
type hostPattern struct {
	host     string
	wildcard bool
	any      bool
	port     int
}

func parseHostPattern(s string) (hostPattern, error) {
	var p hostPattern
	h := strings.ToLower(strings.TrimSpace(s))
	if h == "" {
		return p, fmt.Errorf("empty pattern")
	}
	if strings.Contains(h, "/") {
		return p, fmt.Errorf("want host[:port], not a URL")
	}
	if host, port, err := net.SplitHostPort(h); err == nil && port == "*" {
		h, p.port = host, anyPort
	} else if err == nil {
		n, err := strconv.Atoi(port)
		if err != nil || n < 1 || n > 65535 {
			return p, fmt.Errorf("bad port %q", port)
		}
		h, p.port = host, n
	} else if strings.HasPrefix(h, "[") && strings.HasSuffix(h, "]") {
		h = h[1 : len(h)-1]
	}
	h = strings.TrimSuffix(h, ".")
	if a, err := netip.ParseAddr(h); err == nil {
		h = a.String() // IP literals compare in canonical form
	}
	switch {
	case h == "*":
		p.any = true
	case strings.HasPrefix(h, "*."):
		p.wildcard, p.host = true, h[2:]
	default:
		p.host = h
	}
	if p.host == "" && !p.any || strings.Contains(p.host, "*") {
		return p, fmt.Errorf("bad host pattern")
	}
	return p, nil
}

const anyPort = -1

func (p hostPattern) String() string {
	h := p.host
	switch {
	case p.any:
		h = "*"
	case p.wildcard:
		h = "*." + h
	case strings.Contains(h, ":"):
		h = "[" + h + "]"
	}
	switch p.port {
	case 0:
	case anyPort:
		h += ":*"
	default:
		h += ":" + strconv.Itoa(p.port)
	}
	return h
}

// matchesHost reports whether host (lowercase, no trailing dot) is covered, ignoring ports.
func (p hostPattern) matchesHost(host string) bool {
	switch {
	case p.any:
		return true
	case p.wildcard:
		return strings.HasSuffix(host, "."+p.host)
	}
	return host == p.host
}

// intersectHostPatterns returns the pattern both a and b cover, if one exists.
func intersectHostPatterns(a, b string) (string, bool) {
	pa, err1 := parseHostPattern(a)
	pb, err2 := parseHostPattern(b)
	if err1 != nil || err2 != nil {
		return "", false
	}
	switch {
	case pa.port == anyPort:
		pa.port = pb.port
	case pb.port == anyPort:
		pb.port = pa.port
	case pa.port != pb.port:
		return "", false
	}
	switch {
	case pa.any:
		return pb.String(), true
	case pb.any:
		return pa.String(), true
	case !pa.wildcard && pb.matchesHost(pa.host):
		return pa.String(), true
	case !pb.wildcard && pa.matchesHost(pb.host):
		return pb.String(), true
	case pa.wildcard && pb.wildcard:
		if pa.host == pb.host || strings.HasSuffix(pa.host, "."+pb.host) {
			return pa.String(), true
		}
		if strings.HasSuffix(pb.host, "."+pa.host) {
			return pb.String(), true
		}
	}
	return "", false
}

// within reports whether every host and port p matches is matched by q too.
func (p hostPattern) within(q hostPattern) bool {
	if q.port != anyPort && p.port != q.port {
		return false
	}
	switch {
	case q.any:
		return true
	case p.any:
		return false
	case q.wildcard:
		return p.host == q.host && p.wildcard || strings.HasSuffix(p.host, "."+q.host)
	}
	return !p.wildcard && p.host == q.host
}

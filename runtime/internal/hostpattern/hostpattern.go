// Package hostpattern parses and compares the host patterns of net grants and requests. It
// is a leaf: package policy checks grants with it, package sandbox admits requests with it.
package hostpattern

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

// Pattern is a parsed net grant or request: Host (lowercase, no trailing dot), Wildcard
// for "*.suffix" (Host holds the suffix) or Any for "*", and Port (0 = the scheme's default
// port, AnyPort for "host:*").
type Pattern struct {
	Host     string
	Wildcard bool
	Any      bool
	Port     int
}

// Parse parses one pattern of the grammar above, or says what is wrong with it.
func Parse(s string) (Pattern, error) {
	var p Pattern
	h := strings.ToLower(strings.TrimSpace(s))
	if h == "" {
		return p, fmt.Errorf("empty pattern")
	}
	if strings.Contains(h, "/") {
		return p, fmt.Errorf("want host[:port], not a URL")
	}
	if host, port, err := net.SplitHostPort(h); err == nil && port == "*" {
		h, p.Port = host, AnyPort
	} else if err == nil {
		n, err := strconv.Atoi(port)
		if err != nil || n < 1 || n > 65535 {
			return p, fmt.Errorf("bad port %q", port)
		}
		h, p.Port = host, n
	} else if strings.HasPrefix(h, "[") && strings.HasSuffix(h, "]") {
		h = h[1 : len(h)-1]
	}
	h = strings.TrimSuffix(h, ".")
	if a, err := netip.ParseAddr(h); err == nil {
		h = a.String() // IP literals compare in canonical form
	}
	switch {
	case h == "*":
		p.Any = true
	case strings.HasPrefix(h, "*."):
		p.Wildcard, p.Host = true, h[2:]
	default:
		p.Host = h
	}
	if p.Host == "" && !p.Any || strings.Contains(p.Host, "*") {
		return p, fmt.Errorf("bad host pattern")
	}
	return p, nil
}

// AnyPort is Pattern.Port for "host:*".
const AnyPort = -1

// String is p in canonical form.
func (p Pattern) String() string {
	h := p.Host
	switch {
	case p.Any:
		h = "*"
	case p.Wildcard:
		h = "*." + h
	case strings.Contains(h, ":"):
		h = "[" + h + "]"
	}
	switch p.Port {
	case 0:
	case AnyPort:
		h += ":*"
	default:
		h += ":" + strconv.Itoa(p.Port)
	}
	return h
}

// MatchesHost reports whether host (lowercase, no trailing dot) is covered, ignoring ports.
func (p Pattern) MatchesHost(host string) bool {
	switch {
	case p.Any:
		return true
	case p.Wildcard:
		return strings.HasSuffix(host, "."+p.Host)
	}
	return host == p.Host
}

// Intersect returns the pattern both a and b cover, if one exists.
func Intersect(a, b string) (string, bool) {
	pa, err1 := Parse(a)
	pb, err2 := Parse(b)
	if err1 != nil || err2 != nil {
		return "", false
	}
	switch {
	case pa.Port == AnyPort:
		pa.Port = pb.Port
	case pb.Port == AnyPort:
		pb.Port = pa.Port
	case pa.Port != pb.Port:
		return "", false
	}
	switch {
	case pa.Any:
		return pb.String(), true
	case pb.Any:
		return pa.String(), true
	case !pa.Wildcard && pb.MatchesHost(pa.Host):
		return pa.String(), true
	case !pb.Wildcard && pa.MatchesHost(pb.Host):
		return pb.String(), true
	case pa.Wildcard && pb.Wildcard:
		if pa.Host == pb.Host || strings.HasSuffix(pa.Host, "."+pb.Host) {
			return pa.String(), true
		}
		if strings.HasSuffix(pb.Host, "."+pa.Host) {
			return pb.String(), true
		}
	}
	return "", false
}

// Within reports whether every host and port p matches is matched by q too.
func (p Pattern) Within(q Pattern) bool {
	if q.Port != AnyPort && p.Port != q.Port {
		return false
	}
	switch {
	case q.Any:
		return true
	case p.Any:
		return false
	case q.Wildcard:
		return p.Host == q.Host && p.Wildcard || strings.HasSuffix(p.Host, "."+q.Host)
	}
	return !p.Wildcard && p.Host == q.Host
}

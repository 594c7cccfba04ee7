package sandbox

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/internal/redirect"
	"github.com/mcpwasm/mcpwasm/internal/size"
	"github.com/mcpwasm/mcpwasm/runtime/internal/hostpattern"
	"github.com/mcpwasm/mcpwasm/runtime/peer"
)

// netDefaults returns o with each zero field set to its default (peer.Net).
func netDefaults(o peer.Net) peer.Net {
	if o.Resolver == nil {
		o.Resolver = net.DefaultResolver
	}
	if o.DialContext == nil {
		o.DialContext = (&net.Dialer{Timeout: 10 * time.Second}).DialContext
	}
	if o.MaxResponseBytes == 0 {
		o.MaxResponseBytes = 10 << 20
	}
	if o.Timeout == 0 {
		o.Timeout = 30 * time.Second
	}
	if o.MaxRedirects == 0 {
		o.MaxRedirects = 5
	}
	return o
}

// denial is a refused capability: its message goes to the guest (status DENIED) and, through
// the guest's tool error, to the model.
type denial struct{ msg string }

func (d *denial) Error() string { return d.msg }

func deny(format string, args ...any) error { return &denial{fmt.Sprintf(format, args...)} }

// netTarget is a URL host that passed the grant check, with the pattern that admitted it.
type netTarget struct {
	host    string // lowercase, no trailing dot, no brackets
	port    int
	pattern hostpattern.Pattern

	defaultPort int // the scheme's
}

func (t netTarget) key() string { return net.JoinHostPort(t.host, strconv.Itoa(t.port)) }

// targetKey normalizes the "host:port" net/http dials (taken from the URL as written) the
// way checkURL normalizes hosts, so "LOCALHOST.:018081" finds the target checked as
// "localhost:18081".
func targetKey(addr string) string {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return addr
	}
	n, err := strconv.Atoi(port)
	if err != nil {
		return addr
	}
	return net.JoinHostPort(normalizeHost(host), strconv.Itoa(n))
}

// normalizeHost lowercases a host, drops a trailing dot, and writes an IP literal in its
// canonical form (so "0:0:0:0:0:0:0:1" and "::1" are the same host).
func normalizeHost(h string) string {
	h = strings.TrimSuffix(strings.ToLower(h), ".")
	if a, err := netip.ParseAddr(strings.Trim(h, "[]")); err == nil {
		return a.String()
	}
	return h
}

// checkURL applies the net grant to one URL (the first request or a redirect hop).
func (c *Tool) checkURL(u *url.URL) (netTarget, error) {
	var t netTarget
	if u.Scheme != "http" && u.Scheme != "https" {
		return t, deny("net: scheme %q is not allowed (http and https only)", clip(u.Scheme))
	}
	host := normalizeHost(u.Hostname())
	if host == "" {
		return t, deny("net: URL %q has no host", clip(u.Redacted()))
	}
	if isNumericHost(host) {
		if _, err := netip.ParseAddr(host); err != nil {
			return t, deny("net: host %q is an ambiguous numeric address; use a dotted-quad IPv4 or a name", clip(host))
		}
	}
	port := 80
	if u.Scheme == "https" {
		port = 443
	}
	defaultPort := port
	if p := u.Port(); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > 65535 {
			return t, deny("net: bad port %q", clip(p))
		}
		port = n
	}
	match := func(list []string) (hostpattern.Pattern, bool) {
		for _, s := range list {
			p, err := hostpattern.Parse(s)
			if err != nil || !p.MatchesHost(host) {
				continue
			}
			if p.Port == port || p.Port == hostpattern.AnyPort || p.Port == 0 && port == defaultPort {
				return p, true
			}
		}
		return hostpattern.Pattern{}, false
	}
	hostPort := host
	if port != defaultPort {
		hostPort = net.JoinHostPort(host, strconv.Itoa(port))
	}
	if _, ok := match(c.granted.Net); !ok {
		return t, deny("net: host %q is not granted to %s%s", clip(hostPort), c.subject(), c.portHint(host, port, defaultPort))
	}
	p, ok := match(c.effective.Net)
	if !ok {
		return t, deny("net: host %q is granted but not requested by guest %q (its manifest must list it)", hostPort, c.guest)
	}
	return netTarget{host: host, port: port, defaultPort: defaultPort, pattern: p}, nil
}

// portHint explains a refusal of host:port when a granted pattern matches the host but not
// the port ("*" on 127.0.0.1:18931): a pattern without a port covers only the scheme's
// default one, and "*" never reaches loopback or private addresses. "" when no pattern
// matches the host.
func (c *Tool) portHint(host string, port, defaultPort int) string {
	for _, s := range c.granted.Net {
		p, err := hostpattern.Parse(s)
		if err != nil || !p.MatchesHost(host) {
			continue
		}
		if p.Any || p.Wildcard {
			return fmt.Sprintf(" (%q leaves out loopback, private addresses and non-default ports: grant %q)", s, grantFor(host, port, defaultPort))
		}
		return fmt.Sprintf(" (%q covers only the default port %d: grant %q)", s, defaultPort, grantFor(host, port, defaultPort))
	}
	return ""
}

// grantFor is the net grant that names host:port exactly (no port for the default one).
func grantFor(host string, port, defaultPort int) string {
	if port == defaultPort {
		return host
	}
	return net.JoinHostPort(host, strconv.Itoa(port))
}

// isNumericHost reports whether a URL host would be read as an IPv4 address by a WHATWG URL
// parser: its last label is a decimal, octal or hex number ("127.1", "2130706433",
// "0x7f000001"). Such forms are ambiguous across parsers, so only canonical ones pass.
func isNumericHost(host string) bool {
	if strings.Contains(host, ":") {
		return true // IPv6
	}
	last := host[strings.LastIndexByte(host, '.')+1:]
	if last == "" {
		return false
	}
	if strings.HasPrefix(last, "0x") {
		last = last[2:]
		return strings.Trim(last, "0123456789abcdef") == ""
	}
	return strings.Trim(last, "0123456789") == ""
}

// forbiddenAddr names why addr may not be reached without an explicit grant of it, or "".
// An IPv6 address that embeds an IPv4 address is judged by the IPv4 inside (forbidden6).
func forbiddenAddr(addr netip.Addr) string {
	addr = addr.Unmap()
	if addr.Is6() {
		if why, decided := forbidden6(addr); decided {
			return why
		}
	}
	switch {
	case addr.IsLoopback():
		return "a loopback address"
	case addr.IsUnspecified(), addr.Is4() && addr.As4()[0] == 0:
		return "an unspecified address"
	case addr.IsPrivate():
		return "a private address"
	case addr.IsLinkLocalUnicast():
		return "a link-local address"
	case addr.IsMulticast(), addr.IsLinkLocalMulticast(), addr.IsInterfaceLocalMulticast():
		return "a multicast address"
	}
	if addr.Is4() {
		for _, r := range forbidden4 {
			if r.prefix.Contains(addr) {
				return r.why
			}
		}
	}
	return ""
}

// IPv6 ranges that embed an IPv4 address or are reserved (RFC 6890 and its registry).
var (
	ipv4Translated = netip.MustParsePrefix("::ffff:0:0:0/96") // ::ffff:0:a.b.c.d (RFC 2765)
	ipv4Compatible = netip.MustParsePrefix("::/96")           // ::a.b.c.d (RFC 4291, deprecated)
	reserved6      = netip.MustParsePrefix("::/8")
	nat64          = netip.MustParsePrefix("64:ff9b::/96")   // RFC 6052 well-known prefix
	nat64Local     = netip.MustParsePrefix("64:ff9b:1::/48") // RFC 8215 local use
	teredo         = netip.MustParsePrefix("2001::/32")      // RFC 4380
	sixToFour      = netip.MustParsePrefix("2002::/16")      // RFC 3056
	siteLocal      = netip.MustParsePrefix("fec0::/10")
	discard6       = netip.MustParsePrefix("100::/64")
	documentation6 = netip.MustParsePrefix("2001:db8::/32")
)

// forbidden6 judges the IPv6 addresses the generic checks cannot: each form that embeds an
// IPv4 address is decoded and the IPv4 inside checked (a tunnel or translator would carry
// the connection there); ranges where the IPv4 address cannot be located, and reserved ones,
// are refused. decided is false for an address left to the generic checks.
func forbidden6(a netip.Addr) (why string, decided bool) {
	b := a.As16()
	v4 := func(x [4]byte) netip.Addr { return netip.AddrFrom4(x) }
	inner := func(kind string, ins ...netip.Addr) (string, bool) {
		for _, in := range ins {
			if why := forbiddenAddr(in); why != "" {
				return fmt.Sprintf("%s (%s inside %s)", why, in, kind), true
			}
		}
		return "", true
	}
	switch {
	case a.IsUnspecified(), a.IsLoopback():
		return "", false
	case ipv4Translated.Contains(a):
		return inner("an IPv4-translated address", v4([4]byte(b[12:16])))
	case ipv4Compatible.Contains(a):
		if why, _ := inner("an IPv4-compatible address", v4([4]byte(b[12:16]))); why != "" {
			return why, true
		}
		return "a deprecated IPv4-compatible address", true
	case nat64.Contains(a):
		return inner("a NAT64 address", v4([4]byte(b[12:16])))
	case nat64Local.Contains(a):
		return "a local-use NAT64 address (the IPv4 address inside cannot be located)", true
	case reserved6.Contains(a): // after the NAT64 prefixes, which it contains
		return "a reserved address", true
	case teredo.Contains(a):
		// The server's IPv4 address in bits 32-63, the client's inverted in the last 32.
		client := [4]byte{^b[12], ^b[13], ^b[14], ^b[15]}
		return inner("a Teredo address", v4([4]byte(b[4:8])), v4(client))
	case sixToFour.Contains(a):
		return inner("a 6to4 address", v4([4]byte(b[2:6])))
	case siteLocal.Contains(a):
		return "a site-local address", true
	case discard6.Contains(a):
		return "a discard-only address", true
	case documentation6.Contains(a):
		return "a documentation address", true
	}
	return "", false
}

var forbidden4 = []struct {
	prefix netip.Prefix
	why    string
}{
	{netip.MustParsePrefix("100.64.0.0/10"), "a CGNAT address"},
	{netip.MustParsePrefix("192.0.0.0/24"), "an IETF protocol address"},
	{netip.MustParsePrefix("198.18.0.0/15"), "a benchmarking address"},
	{netip.MustParsePrefix("240.0.0.0/4"), "a reserved address"},
}

// dialPinned resolves target's host, checks every address, and connects to the first one —
// the same address that was checked, so DNS cannot answer differently in between (no
// rebinding window).
func (c *Tool) dialPinned(ctx context.Context, network string, target netTarget) (net.Conn, error) {
	var addrs []netip.Addr
	if a, err := netip.ParseAddr(target.host); err == nil {
		addrs = []netip.Addr{a}
	} else {
		addrs, err = c.net.Resolver.LookupNetIP(ctx, "ip", target.host)
		if err != nil {
			return nil, fmt.Errorf("net: resolving %q: %w", clip(target.host), err)
		}
		if len(addrs) == 0 {
			return nil, fmt.Errorf("net: %q has no addresses", target.host)
		}
	}
	for _, a := range addrs {
		why := forbiddenAddr(a)
		if why == "" || explicitlyGranted(target.pattern, a) {
			continue
		}
		if p := target.pattern; p.Any || p.Wildcard {
			left := "loopback and private addresses"
			if p.Port == 0 {
				left = "loopback, private addresses and non-default ports"
			}
			if _, err := netip.ParseAddr(target.host); err == nil {
				return nil, deny("net: %q resolves to %s, %s; %q leaves out %s: grant %q itself",
					target.host, a.Unmap(), why, p.String(), left, grantFor(target.host, target.port, target.defaultPort))
			}
			return nil, deny("net: %q resolves to %s, %s; %q leaves out %s: only a grant of that IP (with the IP in the URL) reaches it",
				target.host, a.Unmap(), why, p.String(), left)
		}
		return nil, deny("net: %q resolves to %s, %s; not allowed unless granted by that IP", target.host, a.Unmap(), why)
	}
	return c.net.DialContext(ctx, network, net.JoinHostPort(addrs[0].Unmap().String(), strconv.Itoa(target.port)))
}

// explicitlyGranted: a pattern that names the IP itself, or "localhost" for loopback.
func explicitlyGranted(p hostpattern.Pattern, a netip.Addr) bool {
	if p.Wildcard || p.Any {
		return false
	}
	if p.Host == "localhost" {
		return a.Unmap().IsLoopback()
	}
	g, err := netip.ParseAddr(p.Host)
	return err == nil && g.Unmap() == a.Unmap()
}

// httpRequest serves abi.KindHTTP.
func (c *Tool) httpRequest(ctx context.Context, body []byte) (abi.Status, []byte) {
	var req abi.HTTPRequest
	if err := json.Unmarshal(body, &req); err != nil {
		return abi.StatusInvalid, ErrorBody("http: request is not valid JSON: " + err.Error())
	}
	if len(c.granted.Net) == 0 {
		return abi.StatusDenied, ErrorBody(fmt.Sprintf("net: no hosts are granted to %s", c.subject()))
	}
	u, err := url.Parse(req.URL)
	if err != nil {
		return abi.StatusInvalid, ErrorBody("http: bad URL: " + err.Error())
	}
	first, err := c.checkURL(u)
	if err != nil {
		return statusOf(err)
	}
	method := req.Method
	if method == "" {
		method = http.MethodGet
	}
	ctx, cancel := context.WithTimeout(ctx, c.net.Timeout)
	defer cancel()
	reqBody := []byte(req.Body)
	if req.BodyBase64 != "" {
		if reqBody, err = base64.StdEncoding.DecodeString(req.BodyBase64); err != nil {
			return abi.StatusInvalid, ErrorBody("http: body_base64 is not base64: " + err.Error())
		}
	}
	hreq, err := http.NewRequestWithContext(ctx, method, u.String(), bytes.NewReader(reqBody))
	if err != nil {
		return abi.StatusInvalid, ErrorBody("http: " + err.Error())
	}
	for k, vs := range req.Headers {
		for _, v := range vs {
			hreq.Header.Add(k, v)
		}
	}
	targets := map[string]netTarget{first.key(): first}
	transport := &http.Transport{
		Proxy:             nil, // never an environment proxy: the check must see the real destination
		DisableKeepAlives: true,
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			t, ok := targets[targetKey(addr)]
			if !ok {
				return nil, deny("net: %q was not checked against the grant", addr)
			}
			return c.dialPinned(ctx, network, t)
		},
		ResponseHeaderTimeout: c.net.Timeout,
	}
	client := &http.Client{
		Transport: transport,
		CheckRedirect: func(r *http.Request, via []*http.Request) error {
			if len(via) > c.net.MaxRedirects {
				return deny("net: more than %d redirects", c.net.MaxRedirects)
			}
			t, err := c.checkURL(r.URL)
			if err != nil {
				return err
			}
			targets[t.key()] = t
			// The guest's Authorization, Cookie and Proxy-Authorization reach the first
			// URL's origin only (internal/redirect).
			redirect.Apply(r, via[0].URL, nil)
			return nil
		},
	}
	resp, err := client.Do(hreq)
	if err != nil {
		return statusOf(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, int64(c.net.MaxResponseBytes)+1))
	if err != nil {
		return statusOf(err)
	}
	if len(data) > c.net.MaxResponseBytes {
		return abi.StatusTooLarge, ErrorBody(fmt.Sprintf("net: response body exceeds %s", size.Format(uint64(c.net.MaxResponseBytes))))
	}
	out := abi.HTTPResponse{Status: resp.StatusCode, Headers: resp.Header, URL: resp.Request.URL.String()}
	if utf8.Valid(data) {
		out.Body = string(data)
	} else {
		out.BodyBase64 = base64.StdEncoding.EncodeToString(data)
	}
	b, err := json.Marshal(out)
	if err != nil {
		return abi.StatusFailed, ErrorBody("http: encoding response: " + err.Error())
	}
	return abi.StatusOK, b
}

// statusOf maps an error to a status and the one-line reason the guest sees.
func statusOf(err error) (abi.Status, []byte) {
	var d *denial
	switch {
	case errors.As(err, &d):
		return abi.StatusDenied, ErrorBody(d.msg)
	case errors.Is(err, context.DeadlineExceeded):
		return abi.StatusTimeout, ErrorBody("time limit exceeded: " + err.Error())
	case errors.Is(err, context.Canceled):
		return abi.StatusCancelled, ErrorBody("cancelled")
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return abi.StatusFailed, ErrorBody(err.Error())
}

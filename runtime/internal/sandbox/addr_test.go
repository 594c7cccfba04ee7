package sandbox

import (
	"fmt"
	"net/netip"
	"strings"
	"testing"
)

// TestForbiddenAddrDecodesEmbeddedIPv4: every IPv6 form that embeds an IPv4 address is judged
// by the IPv4 inside — each wrapping loopback, a private address, the cloud metadata address
// and a public one — and forms whose IPv4 cannot be located are refused.
func TestForbiddenAddrDecodesEmbeddedIPv4(t *testing.T) {
	type v4 = [4]byte
	embed := map[string]func(x v4) string{
		"IPv4-mapped":     func(x v4) string { return fmt.Sprintf("::ffff:%d.%d.%d.%d", x[0], x[1], x[2], x[3]) },
		"IPv4-compatible": func(x v4) string { return fmt.Sprintf("::%d.%d.%d.%d", x[0], x[1], x[2], x[3]) },
		"IPv4-translated": func(x v4) string { return fmt.Sprintf("::ffff:0:%d.%d.%d.%d", x[0], x[1], x[2], x[3]) },
		"NAT64":           func(x v4) string { return fmt.Sprintf("64:ff9b::%d.%d.%d.%d", x[0], x[1], x[2], x[3]) },
		"6to4":            func(x v4) string { return fmt.Sprintf("2002:%02x%02x:%02x%02x::1", x[0], x[1], x[2], x[3]) },
		"Teredo server": func(x v4) string {
			return fmt.Sprintf("2001:0:%02x%02x:%02x%02x:0:0:%02x%02x:%02x%02x", x[0], x[1], x[2], x[3], ^byte(8), ^byte(8), ^byte(8), ^byte(8))
		},
		"Teredo client": func(x v4) string {
			return fmt.Sprintf("2001:0:0808:0808:8000:ffff:%02x%02x:%02x%02x", ^x[0], ^x[1], ^x[2], ^x[3])
		},
	}
	inner := []struct {
		addr v4
		why  string // "" allowed
	}{
		{v4{127, 0, 0, 1}, "a loopback address"},
		{v4{10, 0, 0, 1}, "a private address"},
		{v4{169, 254, 169, 254}, "a link-local address"},
		{v4{8, 8, 8, 8}, ""},
	}
	for form, f := range embed {
		for _, in := range inner {
			s := f(in.addr)
			a := netip.MustParseAddr(s)
			got := forbiddenAddr(a)
			want := in.why
			if form == "IPv4-compatible" && want == "" {
				want = "a deprecated IPv4-compatible address"
			}
			if want == "" && got != "" || want != "" && !strings.HasPrefix(got, want) {
				t.Errorf("%s %s (%v): forbiddenAddr = %q, want %q", form, s, in.addr, got, want)
			}
		}
	}
	for _, tt := range []struct{ addr, want string }{
		{"::1", "a loopback address"},
		{"::", "an unspecified address"},
		{"fe80::1", "a link-local address"},
		{"fc00::1", "a private address"},
		{"fd12:3456::1", "a private address"},
		{"fec0::1", "a site-local address"},
		{"ff02::1", "a multicast address"},
		{"64:ff9b:1::a00:1", "a local-use NAT64 address (the IPv4 address inside cannot be located)"},
		{"::1:0:0:1", "a reserved address"},
		{"100::1", "a discard-only address"},
		{"2001:db8::1", "a documentation address"},
		{"2606:4700:4700::1111", ""},
		{"2a00:1450:4001:80b::200e", ""},
		{"::ffff:0:7f00:1", "a loopback address (127.0.0.1 inside an IPv4-translated address)"},
		{"2001:0:4136:e378:8000:63bf:3fff:fdd2", ""}, // RFC 4380's example: public server and client
	} {
		if got := forbiddenAddr(netip.MustParseAddr(tt.addr)); got != tt.want {
			t.Errorf("forbiddenAddr(%s) = %q, want %q", tt.addr, got, tt.want)
		}
	}
}

package sandbox

import (
	"context"
	"net/netip"
	"net/url"
	"strings"
	"testing"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/runtime/policy"
)

// A refusal under "*" says what "*" leaves out and the grant that reaches the target (issue
// 45 item 7: `net: ["*"]`, then a fetch to 127.0.0.1:18931 said only "is not granted").
func TestNetStarRefusalSaysWhatItLeavesOut(t *testing.T) {
	for _, tc := range []struct {
		grant, url, want string
	}{
		{"*", "http://127.0.0.1:18931/weather",
			`net: host "127.0.0.1:18931" is not granted to guest "g" ("*" leaves out loopback, private addresses and non-default ports: grant "127.0.0.1:18931")`},
		{"*", "https://api.example.com:8443/",
			`net: host "api.example.com:8443" is not granted to guest "g" ("*" leaves out loopback, private addresses and non-default ports: grant "api.example.com:8443")`},
		{"api.example.com", "https://api.example.com:8443/",
			`net: host "api.example.com:8443" is not granted to guest "g" ("api.example.com" covers only the default port 443: grant "api.example.com:8443")`},
		{"*", "http://127.0.0.1/",
			`net: "127.0.0.1" resolves to 127.0.0.1, a loopback address; "*" leaves out loopback, private addresses and non-default ports: grant "127.0.0.1" itself`},
		{"*:*", "http://10.1.2.3:8080/",
			`net: "10.1.2.3" resolves to 10.1.2.3, a private address; "*:*" leaves out loopback and private addresses: grant "10.1.2.3:8080" itself`},
		{"other.example", "https://api.example.com/", `net: host "api.example.com" is not granted to guest "g"`},
	} {
		c := newTool(t, policy.Grants{Net: []string{tc.grant}}, false, abi.Requests{Net: []string{tc.grant}})
		u, _ := url.Parse(tc.url)
		target, err := c.checkURL(u)
		if err == nil {
			_, err = c.dialPinned(context.Background(), "tcp", target)
		}
		if err == nil || err.Error() != tc.want {
			t.Errorf("grant %q, %s:\n got %v\nwant %s", tc.grant, tc.url, err, tc.want)
		}
		if strings.Contains(tc.want, "grant \"") && err != nil {
			// The grant the message names reaches the target's check.
			g := tc.want[strings.LastIndex(tc.want, `grant "`)+7:]
			g = g[:strings.IndexByte(g, '"')]
			c2 := newTool(t, policy.Grants{Net: []string{g}}, false, abi.Requests{Net: []string{g}})
			if target, err := c2.checkURL(u); err != nil {
				t.Errorf("the named grant %q: %v", g, err)
			} else if strings.Contains(tc.url, "127.0.0.1") || strings.Contains(tc.url, "10.1.2.3") {
				if !explicitlyGranted(target.pattern, mustAddr(t, target.host)) {
					t.Errorf("the named grant %q does not reach %s", g, target.host)
				}
			}
		}
	}
}

func mustAddr(t *testing.T, s string) netip.Addr {
	t.Helper()
	a, err := netip.ParseAddr(s)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

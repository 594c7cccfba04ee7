package names_test

import (
	"strings"
	"testing"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/internal/names"
)

func TestMapName(t *testing.T) {
	for in, want := range map[string]string{
		"echo":                            "echo",
		"get-sum_2":                       "get-sum_2",
		"files.read":                      "files_read_601e4eb6",
		"a.b":                             "a_b_2e7336dc",
		"a_b":                             "a_b",
		strings.Repeat("x", 64):           strings.Repeat("x", 64),
		"read_" + strings.Repeat("x", 95): "read_" + strings.Repeat("x", 50) + "_3922af47",
	} {
		got := names.MapName(in)
		if got != want {
			t.Errorf("MapName(%q) = %q, want %q", in, got, want)
		}
		if !abi.ValidName(got) {
			t.Errorf("MapName(%q) = %q does not match %s", in, got, abi.NamePattern)
		}
	}
}

func TestDeriveGuestName(t *testing.T) {
	for in, want := range map[string]string{
		"Weather Server":               "weather-server",
		"@acme/weather":                "acme-weather",
		"weather.mcp":                  "weather-mcp",
		"  Über -- Wetter  v2 ":        "ber-wetter-v2",
		"天気":                           "",
		strings.Repeat("ab ", 40):      strings.Repeat("ab-", 21) + "a",
		strings.Repeat("x", 63) + " y": strings.Repeat("x", 63),
	} {
		if got := names.DeriveGuestName(in); got != want {
			t.Errorf("DeriveGuestName(%q) = %q, want %q", in, got, want)
		} else if got != "" && !abi.ValidName(got) {
			t.Errorf("DeriveGuestName(%q) = %q does not match %s", in, got, abi.NamePattern)
		}
	}
}

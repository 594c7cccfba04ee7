package digest_test

import (
	"encoding/json"
	"testing"

	"github.com/mcpwasm/mcpwasm/internal/digest"
)

// The digests are those mcpserver's pinDigest and internal/ship's digestOf computed before
// they became this package (commit ed77906): pins and lock files written then still match.
func TestOfKnownValues(t *testing.T) {
	for _, c := range []struct {
		v    any
		want string
	}{
		{json.RawMessage(`{"type":"object","properties":{"n":{"type":"number","maximum":1.50}},"required":["n"]}`),
			"sha256:644a434f9377e4012250b933de7d542aa7a1c4cf196ee2475cec9b18ce373de7"},
		{"Searches the docs", "sha256:90e0e9b1fde57f1bf298f1cc7271859e2cb195a37e86d293f481e3dfc9dd1d76"},
		{nil, "sha256:74234e98afe7498fb5daf1f36ac2d78acc339464f950703b8c019892f982b90b"},
	} {
		if got := digest.Of(c.v); got != c.want {
			t.Errorf("Of(%v) = %s, want %s", c.v, got, c.want)
		}
	}
}

// Key order and space do not change a digest; a number's spelling does (numbers as sent).
func TestOfCanonical(t *testing.T) {
	a := digest.Of(json.RawMessage(`{"b": 1, "a": [true, null]}`))
	if b := digest.Of(json.RawMessage(`{"a":[true,null],"b":1}`)); a != b {
		t.Errorf("reordered keys: %s != %s", b, a)
	}
	if b := digest.Of(json.RawMessage(`{"a":[true,null],"b":1.0}`)); a == b {
		t.Errorf("1 and 1.0 digest alike: %s", a)
	}
	got, err := digest.Canonical(map[string]any{"z": json.Number("1.50"), "a": "x"})
	if want := `{"a":"x","z":1.50}`; err != nil || string(got) != want {
		t.Errorf("Canonical = %s, %v; want %s", got, err, want)
	}
}

func TestOfUnmarshalable(t *testing.T) {
	if got, want := digest.Of(make(chan int)), "sha256:"+digest.Hex([]byte("json: unsupported type: chan int")); got != want {
		t.Errorf("Of(chan) = %s, want %s", got, want)
	}
}

func TestHex(t *testing.T) {
	if got, want := digest.Hex([]byte("abc")), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"; got != want {
		t.Errorf("Hex(abc) = %s, want %s", got, want)
	}
}

// Tool digests each of the eight MCP fields by name; an absent schema (nil) is "null"; an
// absent taskSupport is "forbidden", MCP's default.
func TestTool(t *testing.T) {
	got := digest.Tool("", "Searches the docs", json.RawMessage(nil), nil, nil, nil, nil, "")
	if len(got) != 8 || got["_meta"] != digest.Of(nil) ||
		got["execution"] != digest.Tool("", "", nil, nil, nil, nil, nil, "forbidden")["execution"] || got["description"] != "sha256:90e0e9b1fde57f1bf298f1cc7271859e2cb195a37e86d293f481e3dfc9dd1d76" ||
		got["inputSchema"] != digest.Of(nil) || got["title"] != digest.Of("") {
		t.Errorf("Tool = %v", got)
	}
}

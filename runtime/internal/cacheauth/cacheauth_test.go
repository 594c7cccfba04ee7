package cacheauth

import (
	"errors"
	"strings"
	"testing"
)

func TestSealBindsNameAndContent(t *testing.T) {
	d, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	sealed := d.Seal("a.json", []byte(`{"x":1}`))
	if b, err := d.Unseal("a.json", sealed); err != nil || string(b) != `{"x":1}` {
		t.Fatalf("Unseal = %q, %v", b, err)
	}
	edited := []byte(strings.Replace(string(sealed), `"x":1`, `"x":2`, 1))
	for name, tc := range map[string]struct {
		file string
		b    []byte
	}{"edited": {"a.json", edited}, "moved": {"b.json", sealed}, "unsealed": {"a.json", []byte(`{"x":1}`)}} {
		if _, err := d.Unseal(tc.file, tc.b); !errors.Is(err, ErrTampered) {
			t.Errorf("%s: Unseal = %v, want ErrTampered", name, err)
		}
	}
	// Another cache's key does not verify this one's entries.
	other, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := other.Unseal("a.json", sealed); !errors.Is(err, ErrTampered) {
		t.Errorf("another key: Unseal = %v", err)
	}
}

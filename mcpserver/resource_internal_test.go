package mcpserver

import (
	"testing"
	"time"
)

// TestTokenCacheBounds: a validated token is reused only before its exp, within
// tokenCacheTTL, and while its issuer's key set is unchanged; the cache holds at most
// tokenCacheEntries.
func TestTokenCacheBounds(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	id := &Identity{Subject: "alice", Issuer: "https://i"}
	gen := uint64(1)
	genOf := func(string) uint64 { return gen }
	var c tokenCache
	soon, late := [32]byte{1}, [32]byte{2}
	c.put(soon, id, now.Add(10*time.Second), 1, now)
	c.put(late, id, now.Add(time.Hour), 1, now)
	for _, tc := range []struct {
		name string
		key  [32]byte
		at   time.Time
		want bool
	}{
		{"before exp", soon, now.Add(9 * time.Second), true},
		{"at exp", soon, now.Add(10 * time.Second), false},
		{"within the TTL", late, now.Add(tokenCacheTTL - time.Second), true},
		{"past the TTL, before exp", late, now.Add(tokenCacheTTL), false},
	} {
		if _, _, ok := c.get(tc.key, tc.at, genOf); ok != tc.want {
			t.Errorf("%s: cached = %v, want %v", tc.name, ok, tc.want)
		}
	}
	gen = 2 // the issuer's keys were fetched again
	if _, _, ok := c.get(late, now, genOf); ok {
		t.Error("a token checked against the old key set is still cached")
	}
	for i := range tokenCacheEntries + 10 {
		c.put([32]byte{byte(i), byte(i >> 8), 9}, id, now.Add(time.Hour), 2, now)
	}
	if n := len(c.m); n > tokenCacheEntries {
		t.Errorf("cache holds %d entries, want at most %d", n, tokenCacheEntries)
	}
}

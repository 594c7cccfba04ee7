package oauth

import (
	"fmt"
	"sync"
	"testing"
)

// Two Store values on one directory stand for two processes (each has its own mutex): every
// entry each writes must survive the other's writes. Before the file lock, each put's
// read-modify-write of the whole file could overwrite the other's fresh entry (a rotated
// refresh token lost).
func TestStoreWritesMergeAcrossProcesses(t *testing.T) {
	dir := t.TempDir()
	a, b := NewStore(dir), NewStore(dir)
	const n = 25
	var wg sync.WaitGroup
	for i := range n {
		for _, s := range []*Store{a, b} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				key := fmt.Sprintf("https://%p.example/%d", s, i)
				if err := s.put(key, entry{AccessToken: "t", RefreshToken: "r" + key}); err != nil {
					t.Error(err)
				}
			}()
		}
	}
	wg.Wait()
	m, err := a.read()
	if err != nil {
		t.Fatal(err)
	}
	if len(m) != 2*n {
		t.Fatalf("the store holds %d entries, want %d: a concurrent writer's entries were lost", len(m), 2*n)
	}
}

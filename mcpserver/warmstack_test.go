package mcpserver

import (
	"bytes"
	"runtime"
	"sync"
	"testing"
	"time"
)

// goroutineID is the number runtime.Stack prints for the calling goroutine.
func goroutineID() string {
	b := make([]byte, 64)
	b = b[:runtime.Stack(b, false)]
	return string(bytes.Fields(b)[1])
}

// The point of onWarmStack: a second call runs on the goroutine the first one ran on (whose
// stack has grown), not on the caller's.
func TestOnWarmStackReusesGoroutine(t *testing.T) {
	caller := goroutineID()
	var first, second string
	onWarmStack(func() { first = goroutineID() })
	onWarmStack(func() { second = goroutineID() })
	if first == caller {
		t.Fatalf("fn ran on the caller's goroutine %s", caller)
	}
	if second != first {
		t.Errorf("second call ran on goroutine %s, the first on %s: not reused", second, first)
	}
}

// A panic in fn reaches the caller with its value, and the warm goroutines keep working.
func TestOnWarmStackPanics(t *testing.T) {
	func() {
		defer func() {
			if p := recover(); p != "boom" {
				t.Errorf("recovered %v, want boom", p)
			}
		}()
		onWarmStack(func() { panic("boom") })
		t.Error("onWarmStack returned after fn panicked")
	}()
	ran := false
	onWarmStack(func() { ran = true })
	if !ran {
		t.Error("fn did not run after a panic")
	}
}

// Calls run concurrently: one that waits for another to start is not starved by it.
func TestOnWarmStackConcurrent(t *testing.T) {
	started := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); onWarmStack(func() { <-started }) }()
	go func() { defer wg.Done(); onWarmStack(func() { close(started) }) }()
	wg.Wait()
}

// A warm goroutine left idle exits: a server without calls keeps none.
func TestOnWarmStackIdleExits(t *testing.T) {
	exited := make(chan struct{}, 64)
	warm.Lock()
	oldIdle, oldHook := warmIdle, warmExited
	warmIdle, warmExited = time.Millisecond, func() { exited <- struct{}{} }
	warm.Unlock()
	t.Cleanup(func() {
		warm.Lock()
		warmIdle, warmExited = oldIdle, oldHook
		warm.Unlock()
	})
	onWarmStack(func() {})
	for n := -1; n != 0; { // each exit is an event; earlier tests' goroutines exit too
		<-exited
		warm.Lock()
		n = len(warm.idle)
		warm.Unlock()
	}
}

// deep uses about n KiB of stack.
func deep(n int) byte {
	var pad [1024]byte
	if n == 0 {
		return pad[0]
	}
	pad[n%1024] = byte(n)
	return deep(n-1) + pad[n%7]
}

// BenchmarkStackGrowth is a request handled the SDK's way, on a new goroutine, needing 48 KiB
// of stack: run there (its stack grows every time) and through onWarmStack.
func BenchmarkStackGrowth(b *testing.B) {
	for _, bc := range []struct {
		name string
		run  func(func())
	}{{"new-goroutine", func(f func()) { f() }}, {"warm", onWarmStack}} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				done := make(chan struct{})
				go func() { bc.run(func() { deep(48) }); close(done) }()
				<-done
			}
		})
	}
}

//go:build unix

package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

// writeErrorsOnBrokenPipe makes a write to a closed pipe on stdout or stderr fail with
// EPIPE, as on any other descriptor, instead of killing the process with SIGPIPE (what Go
// does for descriptors 1 and 2 when the program does not ask for the signal), until stop is
// called. The signals themselves are dropped.
func writeErrorsOnBrokenPipe() (stop func()) {
	sig := make(chan os.Signal, 1) // never read: a full channel drops the signal
	signal.Notify(sig, syscall.SIGPIPE)
	return func() { signal.Stop(sig) }
}

// watchStopSignals is the signal kill switch: SIGUSR1 stops every call and refuses new ones
// (runtime.Host.Stop); SIGUSR2 lifts that stop (killSwitch).
func watchStopSignals(ctx context.Context, k *killSwitch) {
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGUSR1, syscall.SIGUSR2)
	defer signal.Stop(sig)
	for {
		select {
		case <-ctx.Done():
			return
		case s := <-sig:
			if s == syscall.SIGUSR1 {
				k.set(&k.signal, true, "signal", "SIGUSR1", "resume", "SIGUSR2")
			} else {
				k.set(&k.signal, false, "signal", "SIGUSR2")
			}
		}
	}
}

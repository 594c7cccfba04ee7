//go:build unix

package main

import (
	"context"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/mcpwasm/mcpwasm/runtime"
)

// watchStopSignals is the signal kill switch: SIGUSR1 stops every call and refuses new ones
// (runtime.Host.Stop); SIGUSR2 resumes.
func watchStopSignals(ctx context.Context, h *runtime.Host, logger *slog.Logger) {
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGUSR1, syscall.SIGUSR2)
	defer signal.Stop(sig)
	for {
		select {
		case <-ctx.Done():
			return
		case s := <-sig:
			if s == syscall.SIGUSR1 {
				h.Stop()
				logger.Warn("operator stop (SIGUSR1): calls stopped and refused; SIGUSR2 resumes")
			} else {
				h.Resume()
				logger.Info("operator resume (SIGUSR2): calls allowed again")
			}
		}
	}
}

package main

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/mcpwasm/mcpwasm/runtime"
	"github.com/mcpwasm/mcpwasm/runtime/mcpserver"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// pollInterval is how often --watch and --stop-file look at the file system. Polling needs
// no platform-specific notification API and is cheap at this rate.
const pollInterval = 250 * time.Millisecond

// watchStopFile is the file-based kill switch: while path exists, every call is stopped
// and refused (runtime.Host.Stop); when it is removed, calls run again. It lifts only a stop
// it caused, so a stop by SIGUSR1 holds until SIGUSR2 whether or not the file exists.
func watchStopFile(ctx context.Context, h *runtime.Host, path string, logger *slog.Logger) {
	t := time.NewTicker(pollInterval)
	defer t.Stop()
	stoppedByFile := false
	for {
		_, err := os.Stat(path)
		switch exists := err == nil; {
		case exists && !stoppedByFile:
			stoppedByFile = true
			h.Stop()
			logger.Warn("operator stop: calls stopped and refused", "stop_file", path)
		case !exists && stoppedByFile:
			stoppedByFile = false
			h.Resume()
			logger.Info("operator resume: calls allowed again", "stop_file", path)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// reloadDrain is how long a reload waits for the old version's calls before closing it: as
// long as its own limits let a call run (not a default 30 s), plus drainGrace, so a call
// accepted is answered.
func reloadDrain(old *runtime.Guest) time.Duration { return old.LongestCall() + drainGrace }

// watchedGuest is one guest file under --watch.
type watchedGuest struct {
	opts  *mcpserver.GuestOptions // how its tools are added (hidden-text policy)
	spec  guestSpec
	path  string
	guest *runtime.Guest
	mod   time.Time
	size  int64
}

// watchGuests reloads a guest whose file changed: the new version is loaded beside the old
// one; only if that succeeds do its tools replace the old ones on srv (the SDK then sends
// notifications/tools/list_changed), and the old version closes once its running calls end.
// A reload that fails is logged and the old version keeps serving.
//
// There is no baseline file time: the first poll reads each file and compares it with the
// bytes that were loaded (reload does nothing when they are equal). A baseline taken when
// this goroutine starts could already include a change made after loading, which would then
// never be seen.
func watchGuests(ctx context.Context, wg *sync.WaitGroup, h *runtime.Host, srv *mcp.Server, ws []*watchedGuest, logger *slog.Logger) {
	t := time.NewTicker(pollInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		for _, w := range ws {
			fi, err := os.Stat(w.path)
			if err != nil || fi.ModTime().Equal(w.mod) && fi.Size() == w.size {
				continue
			}
			w.mod, w.size = fi.ModTime(), fi.Size()
			reload(ctx, wg, h, srv, w, logger)
		}
	}
}

func reload(ctx context.Context, wg *sync.WaitGroup, h *runtime.Host, srv *mcp.Server, w *watchedGuest, logger *slog.Logger) {
	b, err := os.ReadFile(w.path)
	if err != nil {
		logger.Error("reload failed; the old version keeps serving", "guest", w.guest.Name(), "err", err)
		return
	}
	if bytes.Equal(b, w.spec.wasm) {
		return
	}
	next, err := h.Load(ctx, b, w.spec.cfg)
	var gone []string
	if err == nil {
		gone, err = mcpserver.ReplaceGuest(srv, w.guest, next, w.opts)
		if err != nil {
			_ = next.Close(ctx)
		}
	}
	if err != nil {
		logger.Error("reload failed; the old version keeps serving", "guest", w.guest.Name(), "err", err)
		return
	}
	old := w.guest
	w.guest, w.spec.wasm = next, b
	wg.Go(func() {
		dctx, cancel := context.WithTimeout(ctx, reloadDrain(old))
		defer cancel()
		_ = old.Drain(dctx)
		_ = old.Close(context.Background())
	})
	names := make([]string, 0, len(next.Manifest().Tools))
	for _, t := range next.Manifest().Tools {
		names = append(names, t.Name)
	}
	slices.Sort(names)
	logger.Info("guest reloaded", "guest", next.Name(), "source", w.path, "tools", names, "removed", gone)
}

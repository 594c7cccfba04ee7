package main

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/mcpwasm/mcpwasm/mcpserver"
	"github.com/mcpwasm/mcpwasm/runtime"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// pollInterval is how often --watch and --stop-file look at the file system. Polling needs
// no platform-specific notification API and is cheap at this rate.
const pollInterval = 250 * time.Millisecond

// killSwitch is the operator's stop (runtime.Host.Stop) as its causes hold it: the stop file
// and SIGUSR1, each with its own flag, and the mcpwasm_stop tool, whose stop is the host's
// own. Calls are stopped while any cause holds: removing the stop file does not lift a stop
// by SIGUSR1, nor SIGUSR2 one by a file that still exists. Either of the operator's resumes,
// once no other cause holds, lifts a stop by the tool (which MCP cannot undo).
type killSwitch struct {
	h      *runtime.Host
	logger *slog.Logger

	mu           sync.Mutex
	file, signal bool
}

// set records that cause (&k.file or &k.signal) holds or no longer does, stops or resumes
// the host to match, and logs what changed: what (the cause's log attributes) names it.
func (k *killSwitch) set(cause *bool, on bool, what ...any) {
	k.mu.Lock()
	defer k.mu.Unlock()
	*cause = on
	switch {
	case on:
		k.h.Stop()
		k.logger.Warn("operator stop: calls stopped and refused", what...)
	case k.file || k.signal:
		k.logger.Warn("operator resume withheld: calls stay stopped", append(what, "stop_file_present", k.file, "sigusr1", k.signal)...)
	default:
		k.h.Resume()
		k.logger.Info("operator resume: calls allowed again", what...)
	}
}

// watchStopFile is the file-based kill switch: while path exists, every call is stopped
// and refused; when it is removed, the file's stop is lifted (killSwitch).
func watchStopFile(ctx context.Context, k *killSwitch, path string) {
	t := time.NewTicker(pollInterval)
	defer t.Stop()
	stoppedByFile := false
	for {
		_, err := os.Stat(path)
		if exists := err == nil; exists != stoppedByFile {
			stoppedByFile = exists
			k.set(&k.file, exists, "stop_file", path)
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

package main

import (
	"io"
	"log/slog"

	"github.com/mcpwasm/mcpwasm/internal/config"
	"github.com/mcpwasm/mcpwasm/internal/ship"
)

// warnUnpinned warns, on stderr in serve's log format, that config guest g comes from a
// remote source nothing pins: no lock, no "sha256", and not an OCI digest reference. Each
// start then serves whatever the tag or URL names at that moment, which can change under
// it; the warning says how to pin it (a newcomer's OCI guest was fetched silently).
func warnUnpinned(stderr io.Writer, configPath string, g config.Guest, p string, lock *ship.Lock) {
	src, err := ship.ParseSource(p)
	if err != nil || !src.Remote() || lock != nil || g.SHA256 != "" {
		return
	}
	if src.IsDigest() {
		return // @sha256:…: the reference is its own pin
	}
	slog.New(slog.NewTextHandler(stderr, nil)).Warn(
		"guest is not pinned: every start fetches what its source names now, which can change; run mcpwasm pull --config "+configPath+" to fetch and lock it in "+ship.LockName+", or pin it with \"sha256\"",
		"guest", guestLabel(g), "source", g.Path)
}

package main

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/mcpwasm/mcpwasm/bench"
)

// isolation measures the echo over stdio, one call in flight, under each `--isolation` of
// `mcpwasm serve`, as a ratio to the same binary's shared; with -old, that binary's rows are
// measured beside, each row right after this tree's (issue 28: call ≥ 0.5× shared). The
// server's CPU per call is given too, with its ratio (shared's over this one's, so that it
// reads as throughput would on an idle machine): on a loaded machine calls/s measure the
// scheduler as much as the server.
func isolation(ctx context.Context, c config, p paths) error {
	step("isolation modes over stdio")
	args := json.RawMessage(bench.Args(100))
	fmt.Printf("\n### Isolation (`--isolation`; stdio, 1 call in flight, 100-byte arguments)\n\n")
	fmt.Println("| server | --isolation | binary | calls/s | × shared | server CPU/call | × shared (CPU) | p50 | p99 | RSS |")
	fmt.Println("|---|---|---|--:|--:|--:|--:|--:|--:|--:|")
	bins := []struct{ name, path string }{{"this tree", p.mcpwasm}}
	if c.old != "" {
		bins = append(bins, struct{ name, path string }{"-old", c.old})
	}
	for i := 1; i < len(p.servers()); i++ { // the mcpwasm servers, not the native one
		shared, sharedCPU := map[string]float64{}, map[string]float64{}
		for _, iso := range []string{"shared", "session", "call"} {
			for _, b := range bins {
				q := p
				q.mcpwasm = b.path
				sv := q.servers("--isolation", iso, "--lazy=false")[i]
				r, err := loadRun(ctx, sv, 1, c.loadDur, args)
				if err != nil {
					return fmt.Errorf("%s --isolation %s (%s): %w", sv.name, iso, b.name, err)
				}
				if iso == "shared" {
					shared[b.name], sharedCPU[b.name] = r.CallsPerSec, float64(r.CPUPerCall)
				}
				fmt.Printf("| %s | %s | %s | %.0f | %.2f× | %s | %.2f× | %s | %s | %s |\n", sv.name, iso, b.name, r.CallsPerSec,
					r.CallsPerSec/shared[b.name], dur(r.CPUPerCall), sharedCPU[b.name]/float64(r.CPUPerCall), dur(r.P50), dur(r.P99), mb(r.RSS))
			}
		}
	}
	return nil
}

package main

import (
	"context"
	"encoding/json"
	"fmt"
	jsguest "github.com/mcpwasm/mcpwasm/abi/js"
	"os"
	"os/exec"
	"path/filepath"
	goruntime "runtime"
	"slices"
	"time"

	"github.com/mcpwasm/mcpwasm/bench"
)

// javascript is section 9: a JavaScript guest (guests/typescript/testdata/limits.js built
// with the example's mcpwasm/build.mjs: quickjs-wasi with the script in it) against the same
// echo tool served by Node with the TypeScript SDK (testdata/interop/echo-server.mjs), over
// stdio: calls/s of a 100-byte echo, and process start → first tools/list with a warm cache.
// Both need npm packages (npm ci --prefix guests/typescript and testdata/interop, as .ci/run
// does); without them the section says what is missing.
func javascript(ctx context.Context, c config, p paths, root string) error {
	step("JavaScript guest against Node")
	fmt.Printf("\n## 9. JavaScript guests: the TS SDK's echo in mcpwasm and in Node\n\n")
	node, err := exec.LookPath("node")
	if err != nil {
		fmt.Println("Not measured: no node on PATH.")
		return nil
	}
	example := filepath.Join(root, "guests", "typescript")
	peer := filepath.Join(root, "testdata", "interop", "echo-server.mjs")
	for _, need := range []string{filepath.Join(example, "node_modules", "esbuild"), filepath.Join(root, "testdata", "interop", "node_modules", "@modelcontextprotocol", "sdk")} {
		if _, err := os.Stat(need); err != nil {
			fmt.Printf("Not measured: %s is not installed (npm ci --prefix guests/typescript and testdata/interop).\n", need)
			return nil
		}
	}
	if err := jsguest.Sync(filepath.Join(example, "mcpwasm")); err != nil { // generated from abi/js
		return err
	}
	guest := filepath.Join(p.dir, "limits.wasm")
	build := exec.CommandContext(ctx, node, "mcpwasm/build.mjs", "testdata/limits.js", guest)
	build.Dir = example
	if out, err := build.CombinedOutput(); err != nil {
		return fmt.Errorf("building the JavaScript guest: %v\n%s", err, out)
	}
	fi, err := os.Stat(guest)
	if err != nil {
		return err
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	floor := server{"floor: no MCP, a fixed answer (driver and pipes)", nil, []string{self, "-stdio-floor"}, "echo"}
	servers := []server{
		{"Node 20, TS SDK", nil, []string{node, peer}, "echo"},
		{"mcpwasm, JS guest", nil, []string{p.mcpwasm, "serve", "--log-level", "warn", "--cache-dir", filepath.Join(p.dir, "cache"), guest}, "echo"},
	}
	// The WAT echo: what the host costs with almost no guest work.
	wat := server{"mcpwasm, WAT echo", nil, []string{p.mcpwasm, "serve", "--log-level", "warn", "--cache-dir", filepath.Join(p.dir, "cache"), p.watEcho}, "echo"}
	fmt.Printf("The guest: %d bytes (engine, script and bytecode).\n\n", fi.Size())
	fmt.Println("| server | in flight | calls/s | × Node | p50 | p99 | server CPU/call | server cores | machine busy | RSS |")
	fmt.Println("|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|")
	args := json.RawMessage(bench.Args(100))
	for _, inflight := range []int{1, 4} {
		var nodeRate float64
		for i, sv := range append(servers, wat, floor) {
			r, err := loadRun(ctx, sv, inflight, c.loadDur, args)
			if err != nil {
				return fmt.Errorf("%s: %w", sv.name, err)
			}
			if i == 0 {
				nodeRate = r.CallsPerSec
			}
			fmt.Printf("| %s | %d | %.0f | %.2f× | %s | %s | %s | %.2f | %.2f of %d | %s |\n", sv.name, inflight, r.CallsPerSec, r.CallsPerSec/nodeRate,
				dur(r.P50), dur(r.P99), dur(r.CPUPerCall), r.CallsPerSec*r.CPUPerCall.Seconds(), r.MachineBusy, goruntime.NumCPU(), mb(r.RSS))
		}
	}
	fmt.Println("\nServer cores: calls/s × server CPU/call. Machine busy: CPUs the whole machine kept busy during the run (server, client and anything else; /proc/stat): near all of them, the server had no idle CPU to use more of, and a higher calls/s at 4 in flight has to come from less CPU per call.")
	fmt.Printf("\n| server | process start → first tools/list | → first tools/call answered | RSS then |\n|---|--:|--:|--:|\n")
	for _, sv := range servers {
		var lists, calls []time.Duration
		var rss int64
		for range c.coldReps {
			s, d, err := bench.ColdStart(ctx, nil, sv.argv...)
			if err != nil {
				return fmt.Errorf("%s: %w", sv.name, err)
			}
			err = s.CallTool(sv.tool, args)
			calls = append(calls, time.Since(s.Start))
			pr, _ := bench.ReadProc(s.Pid())
			s.Close()
			if err != nil {
				return fmt.Errorf("%s: %w", sv.name, err)
			}
			lists, rss = append(lists, d), pr.RSS
		}
		slices.Sort(lists)
		slices.Sort(calls)
		fmt.Printf("| %s | %s | %s | %s |\n", sv.name, dur(lists[len(lists)/2]), dur(calls[len(calls)/2]), mb(rss))
	}
	fmt.Printf("\nWarm compilation cache; medians of %d starts.\n", c.coldReps)
	return nil
}

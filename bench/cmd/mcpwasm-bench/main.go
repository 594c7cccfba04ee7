// Command mcpwasm-bench runs mcpwasm's benchmarks and prints Markdown tables: per-call cost
// on warm and fresh instances (against a bare wazero call and Extism's Go SDK), end-to-end
// tools/call over stdio (against a native MCP go-sdk server), scaling, cold start and memory.
// Run it from inside the module:
//
//	cd bench && go run ./cmd/mcpwasm-bench          # full run, a few minutes
//	cd bench && go run ./cmd/mcpwasm-bench -quick   # CI smoke run, under a minute
//	cd bench && go run ./cmd/mcpwasm-bench -startup -old OLD/mcpwasm   # section 6 only, old beside new
//
// It needs the Go toolchain (it builds the Go guests, mcpwasm and the native server).
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpwasm/mcpwasm/bench"
	"github.com/mcpwasm/mcpwasm/testdata/wat"
)

type config struct {
	quick                       bool
	benchtime                   time.Duration
	sizes                       []int
	runtimeBench                string // -bench pattern for go test ./runtime/internal/engine
	loadDur                     time.Duration
	coldGo, coldWat             []int
	coldReps                    int
	soakWat, soakGo, soakNative int
	skipMicro                   bool
	startup                     bool   // -startup: only section 6
	firstList                   bool   // -firstlist: only section 8
	soakOnly                    bool   // -soak: only section 7
	jsOnly                      bool   // -js: only section 9
	isolationOnly               bool   // -isolation: only the isolation table of section 2
	old                         string // -old: an mcpwasm binary measured beside the new one in section 6
}

func main() {
	testing.Init()
	var c config
	flag.BoolVar(&c.quick, "quick", false, "short run for CI (< 60 s): shorter timings, fewer cases")
	flag.BoolVar(&c.skipMicro, "skip-micro", false, "skip the in-process benchmarks")
	flag.BoolVar(&c.startup, "startup", false, "run only section 6: warm-cache start and idle memory of the bundled server and of 5 and 20 Go guests")
	flag.BoolVar(&c.firstList, "firstlist", false, "run only section 8: first tools/list of the bundled server against a server of one WAT guest (warm cache, 7 starts each)")
	flag.BoolVar(&c.jsOnly, "js", false, "run only section 9: a JavaScript guest against the same echo in Node with the TypeScript SDK (needs npm ci in guests/typescript and testdata/interop)")
	flag.BoolVar(&c.soakOnly, "soak", false, "run only section 7: 8 HTTP sessions × 5,000 calc calls (50 with -quick), then idle; RSS and goroutines")
	flag.BoolVar(&c.isolationOnly, "isolation", false, "run only the isolation table of section 2: the WAT and Go echo over stdio under --isolation shared, session and call")
	flag.StringVar(&c.old, "old", "", "with -startup or -isolation: an older mcpwasm binary to measure beside the one built from this tree")
	coldGo := flag.String("cold-go", "", "comma-separated Go guest counts for cold start (default 1,5; 1 with -quick); "+
		"each count compiles that many Go guests once, about 3-4 s each on 2 cores")
	floor := flag.Bool("stdio-floor", false, "not a benchmark: be section 9's floor, a stdio peer with no MCP that answers every request with an echo result")
	flag.Parse()
	if *floor {
		if err := stdioFloor(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		return
	}
	if c.quick {
		c.benchtime, c.sizes, c.runtimeBench, c.loadDur = 20*time.Millisecond, bench.Sizes[:2], "^BenchmarkInstanceCall$", 200*time.Millisecond
		c.coldGo, c.coldWat, c.coldReps = []int{1}, []int{1, 5}, 1
		c.soakWat, c.soakGo, c.soakNative = 4_000, 400, 2_000
	} else {
		c.benchtime, c.sizes, c.runtimeBench, c.loadDur = 400*time.Millisecond, bench.Sizes, "^Benchmark(InstanceCall|Instrumentation|ValidateArgs)$", 2*time.Second
		c.coldGo, c.coldWat, c.coldReps = []int{1, 5}, []int{1, 5, 20}, 3
		c.soakWat, c.soakGo, c.soakNative = 100_000, 10_000, 20_000
	}
	if *coldGo != "" {
		c.coldGo = nil
		for _, f := range strings.Split(*coldGo, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil || n < 1 || n > 20 {
				fatal(fmt.Errorf("-cold-go: %q is not a count from 1 to 20", f))
			}
			c.coldGo = append(c.coldGo, n)
		}
	}
	if err := flag.Set("test.benchtime", c.benchtime.String()); err != nil {
		fatal(err)
	}
	start := time.Now()
	if err := run(context.Background(), c); err != nil {
		fatal(err)
	}
	fmt.Printf("\n_total driver time %.0f s; load average at the end: %s_\n", time.Since(start).Seconds(), loadavg())
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "mcpwasm-bench:", err)
	os.Exit(1)
}

type paths struct {
	dir, mcpwasm, native, watEcho string
	goEcho, watCopies             []string // [i] is copy i (distinct guest and tool names)
}

func run(ctx context.Context, c config) error {
	dir, err := os.MkdirTemp("", "mcpwasm-bench")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	root, err := bench.ModuleRoot()
	if err != nil {
		return err
	}
	if c.soakOnly { // needs no build: the server runs in this process
		fmt.Printf("# mcpwasm benchmarks\n\n%s\n", machine())
		return soak(ctx, c, dir)
	}
	p := paths{dir: dir, mcpwasm: filepath.Join(dir, "mcpwasm"), native: filepath.Join(dir, "nativeecho"), watEcho: filepath.Join(dir, "echo.wasm")}
	step("building mcpwasm, nativeecho and the guests")
	// mcpwasm in the root module, nativeecho in the bench module (bench/go.mod).
	for _, b := range [][3]string{{p.mcpwasm, root, "./cmd/mcpwasm"}, {p.native, filepath.Join(root, "bench"), "./cmd/nativeecho"}} {
		cmd := exec.CommandContext(ctx, "go", "build", "-o", b[0], b[2])
		cmd.Dir = b[1]
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("go build %s: %v\n%s", b[2], err, out)
		}
	}
	gg, err := bench.BuildGoGuests(ctx, dir)
	if err != nil {
		return err
	}
	if err := os.WriteFile(p.watEcho, wat.Echo, 0o644); err != nil {
		return err
	}
	for i := range 21 {
		w, name := bench.GoEchoCopy(gg.Echo, i)
		f := filepath.Join(dir, name+".wasm")
		if err := os.WriteFile(f, w, 0o644); err != nil {
			return err
		}
		p.goEcho = append(p.goEcho, f)
		w, name = bench.WatEchoCopy(wat.Echo, i)
		f = filepath.Join(dir, name+".wasm")
		if err := os.WriteFile(f, w, 0o644); err != nil {
			return err
		}
		p.watCopies = append(p.watCopies, f)
	}
	fmt.Printf("# mcpwasm benchmarks\n\n%s\n", machine())
	if c.quick {
		fmt.Println("\n_quick mode: short timings, numbers are indicative only_")
	}
	if c.startup {
		return startup(ctx, c, p, c.old)
	}
	if c.firstList {
		return firstList(ctx, c, p)
	}
	if c.jsOnly {
		return javascript(ctx, c, p, root)
	}
	if c.isolationOnly {
		return isolation(ctx, c, p)
	}

	if !c.skipMicro {
		if err := micro(ctx, c, dir, root); err != nil {
			return err
		}
	}
	if err := endToEnd(ctx, c, p); err != nil {
		return err
	}
	if err := coldStart(ctx, c, p); err != nil {
		return err
	}
	if err := memory(ctx, c, p); err != nil {
		return err
	}
	if err := firstList(ctx, c, p); err != nil {
		return err
	}
	if err := javascript(ctx, c, p, root); err != nil {
		return err
	}
	return soak(ctx, c, dir)
}

func step(s string) { fmt.Fprintf(os.Stderr, "mcpwasm-bench: %s\n", s) }

func machine() string {
	cpu := "unknown CPU"
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(l, ":"); ok && strings.TrimSpace(k) == "model name" {
				cpu = strings.TrimSpace(v)
				break
			}
		}
	}
	goVersion, _ := exec.Command("go", "env", "GOVERSION").Output()
	return fmt.Sprintf("Machine: %s, %d CPUs, %s linux/amd64, wazero v1.12.0, Extism go-sdk v1.7.1, %s; load average at the start: %s.",
		cpu, numCPU(), strings.TrimSpace(string(goVersion)), time.Now().UTC().Format("2006-01-02"), loadavg())
}

// loadavg is the 1, 5 and 15 minute load averages: other work on the machine skews timings.
func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	return strings.Join(strings.Fields(string(b))[:3], " ")
}

func numCPU() int {
	b, _ := os.ReadFile("/proc/cpuinfo")
	return strings.Count(string(b), "processor\t:")
}

// ---- in-process benchmarks ----

func micro(ctx context.Context, c config, dir, root string) error {
	step("in-process benchmarks (warm and fresh instances)")
	env, err := bench.NewEnv(ctx, dir)
	if err != nil {
		return err
	}
	defer env.Close()
	fmt.Printf("\n## 1. ABI round trip, in process\n\n### 1a. Warm instance: echo of N bytes\n\n")
	fmt.Println("| guest | path | size | ns/op | × floor | B/op | allocs/op |")
	fmt.Println("|---|---|---|--:|--:|--:|--:|")
	floors := map[string]float64{}
	var key = func(r bench.Result) string { return r.Group + "/" + strconv.Itoa(r.Size) }
	results := map[string]bench.Result{}
	for _, cs := range env.WarmCases(c.sizes) {
		r, err := bench.Run(cs)
		if err != nil {
			return err
		}
		if strings.HasPrefix(r.Name, "floor:") {
			floors[key(r)] = r.NsPerOp
		}
		results[r.Group+"|"+r.Name+"|"+strconv.Itoa(r.Size)] = r
		ratio := "—"
		if f := floors[key(r)]; f > 0 && r.Size > 0 {
			ratio = fmt.Sprintf("%.1f×", r.NsPerOp/f)
		}
		size := "—"
		if r.Size > 0 {
			size = bench.SizeName(r.Size)
		}
		fmt.Printf("| %s | %s | %s | %s | %s | %.0f | %.0f |\n", r.Group, r.Name, size, ns(r.NsPerOp), ratio, r.BytesPerOp, r.AllocsPerOp)
	}
	fmt.Printf("\n### 1b. Fresh instance per call (100-byte echo)\n\n")
	fmt.Println("| guest | path | ns/op | B/op | allocs/op |")
	fmt.Println("|---|---|--:|--:|--:|")
	for _, cs := range append(env.FreshCases(), env.LoadCases()...) {
		r, err := bench.Run(cs)
		if err != nil {
			return err
		}
		fmt.Printf("| %s | %s | %s | %.0f | %.0f |\n", r.Group, r.Name, ns(r.NsPerOp), r.BytesPerOp, r.AllocsPerOp)
	}

	fmt.Printf("\n### 1d. CPU-bound Go guest: SHA-256 of 1 MiB\n\n")
	fmt.Println("| path | ns/op | × no checks | B/op | allocs/op |")
	fmt.Println("|---|--:|--:|--:|--:|")
	var noChecks float64
	for _, cs := range env.CPUCases() {
		r, err := bench.Run(cs)
		if err != nil {
			return err
		}
		if noChecks == 0 {
			noChecks = r.NsPerOp
		}
		fmt.Printf("| %s | %s | %.2f× | %.0f | %.0f |\n", r.Name, ns(r.NsPerOp), r.NsPerOp/noChecks, r.BytesPerOp, r.AllocsPerOp)
	}

	step("instance-level and instrumentation benchmarks (go test ./runtime/internal/engine)")
	bt := c.benchtime.String()
	cmd := exec.CommandContext(ctx, "go", "test", "-run", "^$", "-bench", c.runtimeBench, "-benchmem", "-benchtime", bt, "./runtime/internal/engine")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "MCPWASM_BENCH_GOECHO="+filepath.Join(dir, "goecho.wasm"), "MCPWASM_BENCH_GOBARE="+filepath.Join(dir, "gobare.wasm"), "MCPWASM_BENCH_GOSHA="+filepath.Join(dir, "gosha.wasm"))
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("go test -bench ./runtime/internal/engine: %v\n%s", err, out)
	}
	fmt.Printf("\n### 1c. Instance level and the interruption rewrite (`go test -bench ./runtime/internal/engine`)\n\n")
	fmt.Println("| benchmark | ns/op | B/op | allocs/op |")
	fmt.Println("|---|--:|--:|--:|")
	re := regexp.MustCompile(`^Benchmark(\S+?)(-\d+)?\s+\d+\s+([\d.]+) ns/op\s+(\d+) B/op\s+(\d+) allocs/op`)
	rows := 0
	for _, l := range strings.Split(string(out), "\n") {
		if m := re.FindStringSubmatch(l); m != nil {
			v, _ := strconv.ParseFloat(m[3], 64)
			if v <= 0 {
				return fmt.Errorf("go test -bench ./runtime/internal/engine: %s reports %s ns/op", m[1], m[3])
			}
			fmt.Printf("| %s | %s | %s | %s |\n", m[1], ns(v), m[4], m[5])
			rows++
		}
	}
	if rows == 0 {
		return fmt.Errorf("go test -bench ./runtime/internal/engine printed no benchmark matching %q:\n%s", c.runtimeBench, out)
	}

	fmt.Printf("\n### Ratios against the targets (BENCHMARKS.md, \"Targets\")\n\n")
	get := func(g, n string, size int) float64 { return results[g+"|"+n+"|"+strconv.Itoa(size)].NsPerOp }
	floorNames := map[string]string{"wat": "floor: bare wazero ptr+len call", "go": "floor: bare //go:wasmexport call"}
	for _, tg := range []struct {
		guest string
		size  int
		max   float64
	}{{"wat", 100, 5}, {"wat", 1 << 20, 3}, {"go", 100, 30}, {"go", 1 << 20, 5}} {
		ours, floor := get(tg.guest, "mcpwasm Guest.Call", tg.size), get(tg.guest, floorNames[tg.guest], tg.size)
		if ours == 0 || floor == 0 {
			continue // size not run (quick mode)
		}
		verdict := "met"
		if ours/floor > tg.max {
			verdict = "missed"
		}
		fmt.Printf("- %s %s: Guest.Call %s = %.1f× the floor %s (target ≤ %g×): %s.\n",
			strings.ToUpper(tg.guest), bench.SizeName(tg.size), ns(ours), ours/floor, ns(floor), tg.max, verdict)
	}
	return nil
}

func ns(v float64) string {
	switch {
	case v >= 1e6:
		return fmt.Sprintf("%.2f ms", v/1e6)
	case v >= 1e4:
		return fmt.Sprintf("%.1f µs", v/1e3)
	case v >= 1e3:
		return fmt.Sprintf("%.2f µs", v/1e3)
	}
	return fmt.Sprintf("%.0f ns", v)
}

func dur(d time.Duration) string { return ns(float64(d.Nanoseconds())) }

func mb(b int64) string { return fmt.Sprintf("%.1f MB", float64(b)/1e6) }

// ---- end to end ----

type server struct {
	name string
	env  []string
	argv []string
	tool string
}

func (p paths) servers(extraServe ...string) []server {
	serve := func(guest string) []string {
		return append(append([]string{p.mcpwasm, "serve", "--log-level", "warn", "--cache-dir", filepath.Join(p.dir, "cache")}, extraServe...), guest)
	}
	return []server{
		{"native go-sdk", nil, []string{p.native}, "echo"},
		{"mcpwasm, WAT echo", nil, serve(p.watEcho), "echo"},
		{"mcpwasm, Go echo", nil, serve(p.goEcho[0]), bench.GoEchoID},
	}
}

func endToEnd(ctx context.Context, c config, p paths) error {
	step("end-to-end tools/call over stdio")
	args := json.RawMessage(bench.Args(100))
	fmt.Printf("\n## 2. End-to-end tools/call (100-byte arguments)\n\n")
	native := map[int]float64{}
	fmt.Printf("### Over stdio\n\n")
	fmt.Println("| server | in flight | calls/s | × native | p50 | p99 | server CPU/call | RSS |")
	fmt.Println("|---|--:|--:|--:|--:|--:|--:|--:|")
	for _, inflight := range []int{1, 8} {
		for _, sv := range p.servers() {
			r, err := loadRun(ctx, sv, inflight, c.loadDur, args)
			if err != nil {
				return fmt.Errorf("%s: %w", sv.name, err)
			}
			if sv.name == "native go-sdk" {
				native[inflight] = r.CallsPerSec
			}
			fmt.Printf("| %s | %d | %.0f | %.2f× | %s | %s | %s | %s |\n", sv.name, inflight, r.CallsPerSec, r.CallsPerSec/native[inflight],
				dur(r.P50), dur(r.P99), dur(r.CPUPerCall), mb(r.RSS))
		}
	}
	if out, _ := exec.Command(p.mcpwasm, "serve", "-h").CombinedOutput(); !strings.Contains(string(out), "-http") {
		fmt.Println("\nStreamable HTTP: not measured — `mcpwasm serve -h` has no `--http` flag in this build.")
	} else {
		step("end-to-end tools/call over Streamable HTTP")
		fmt.Printf("\n### Over Streamable HTTP (one session, `--json-response`, keep-alive)\n\n")
		fmt.Println("| server | in flight | calls/s | × native | p50 | p99 | server CPU/call | RSS |")
		fmt.Println("|---|--:|--:|--:|--:|--:|--:|--:|")
		for _, inflight := range []int{1, 8} {
			for _, sv := range p.servers() {
				addr, err := bench.FreeAddr()
				if err != nil {
					return err
				}
				argv := append([]string{sv.argv[0]}, "-http", addr)
				if sv.argv[0] == p.mcpwasm {
					argv = append([]string{p.mcpwasm, "serve", "--http", addr, "--json-response"}, sv.argv[2:]...)
				}
				s, err := bench.StartHTTPServer(ctx, sv.env, addr, argv...)
				if err != nil {
					return fmt.Errorf("%s over HTTP: %w", sv.name, err)
				}
				r, err := bench.Load(s, sv.tool, args, inflight, 0, c.loadDur)
				s.Close()
				if err != nil {
					return fmt.Errorf("%s over HTTP: %w", sv.name, err)
				}
				if sv.name == "native go-sdk" {
					native[inflight] = r.CallsPerSec
				}
				fmt.Printf("| %s | %d | %.0f | %.2f× | %s | %s | %s | %s |\n", sv.name, inflight, r.CallsPerSec, r.CallsPerSec/native[inflight],
					dur(r.P50), dur(r.P99), dur(r.CPUPerCall), mb(r.RSS))
			}
		}
	}

	if err := isolation(ctx, c, p); err != nil {
		return err
	}

	step("scaling")
	fmt.Printf("\n## 4. Scaling (8 calls in flight, 100-byte arguments)\n\n### GOMAXPROCS\n\n")
	fmt.Println("| server | GOMAXPROCS | calls/s | p50 | p99 | server CPU/call |")
	fmt.Println("|---|--:|--:|--:|--:|--:|")
	for _, sv := range p.servers() {
		for _, procs := range []int{1, 2} {
			sv := sv
			sv.env = []string{"GOMAXPROCS=" + strconv.Itoa(procs)}
			r, err := loadRun(ctx, sv, 8, c.loadDur, args)
			if err != nil {
				return fmt.Errorf("%s: %w", sv.name, err)
			}
			fmt.Printf("| %s | %d | %.0f | %s | %s | %s |\n", sv.name, procs, r.CallsPerSec, dur(r.P50), dur(r.P99), dur(r.CPUPerCall))
		}
	}
	fmt.Printf("\n### Instance pool size (`--instances`)\n\n")
	fmt.Println("| server | --instances | calls/s | p50 | p99 | RSS |")
	fmt.Println("|---|--:|--:|--:|--:|--:|")
	for _, n := range []int{1, 2, 4, 8} {
		for _, sv := range p.servers("--instances", strconv.Itoa(n))[1:] {
			r, err := loadRun(ctx, sv, 8, c.loadDur, args)
			if err != nil {
				return fmt.Errorf("%s: %w", sv.name, err)
			}
			fmt.Printf("| %s | %d | %.0f | %s | %s | %s |\n", sv.name, n, r.CallsPerSec, dur(r.P50), dur(r.P99), mb(r.RSS))
		}
	}
	return nil
}

func loadRun(ctx context.Context, sv server, inflight int, d time.Duration, args json.RawMessage) (bench.LoadResult, error) {
	s, err := bench.StartServer(ctx, sv.env, sv.argv...)
	if err != nil {
		return bench.LoadResult{}, err
	}
	defer s.Close()
	return bench.Load(s, sv.tool, args, inflight, 0, d)
}

// ---- cold start ----

func coldStart(ctx context.Context, c config, p paths) error {
	step("cold start")
	fmt.Printf("\n## 3. Cold start: process start → first tools/list reply\n\n")
	fmt.Println("| guests | compilation cache | time (median) | RSS at reply |")
	fmt.Println("|---|---|--:|--:|")
	for _, set := range []struct {
		kind  string
		files []string
		ns    []int
	}{{"WAT echo", p.watCopies, c.coldWat}, {"Go echo", p.goEcho, c.coldGo}} {
		for _, n := range set.ns {
			cache := filepath.Join(p.dir, fmt.Sprintf("cold-%s-%d", set.kind[:1], n))
			argv := append([]string{p.mcpwasm, "serve", "--log-level", "warn", "--cache-dir", cache}, set.files[1:n+1]...)
			// fresh: an empty cache directory; the run leaves it warm for the next ones.
			d, rss, err := coldOnce(ctx, argv)
			if err != nil {
				return err
			}
			fmt.Printf("| %d %s | fresh (empty --cache-dir) | %s | %s |\n", n, set.kind, dur(d), mb(rss))
			var ds []time.Duration
			for range c.coldReps {
				d, r, err := coldOnce(ctx, argv)
				if err != nil {
					return err
				}
				ds, rss = append(ds, d), r
			}
			slices.Sort(ds)
			fmt.Printf("| %d %s | warm | %s | %s |\n", n, set.kind, dur(ds[len(ds)/2]), mb(rss))
		}
	}
	d, rss, err := coldOnce(ctx, []string{p.native})
	if err != nil {
		return err
	}
	fmt.Printf("| native go-sdk echo | — | %s | %s |\n", dur(d), mb(rss))
	return nil
}

func coldOnce(ctx context.Context, argv []string) (time.Duration, int64, error) {
	s, d, err := bench.ColdStart(ctx, nil, argv...)
	if err != nil {
		return 0, 0, err
	}
	pr, _ := bench.ReadProc(s.Pid())
	s.Close()
	return d, pr.RSS, nil
}

// ---- memory ----

func memory(ctx context.Context, c config, p paths) error {
	step("memory")
	fmt.Printf("\n## 5. Memory\n\n")
	fmt.Println("| idle server, 1 s after the first tools/list | RSS | peak RSS |")
	fmt.Println("|---|--:|--:|")
	nGo := c.coldGo[0] // the largest count up to 5 (1 in quick mode); cold start left its cache warm
	for _, n := range c.coldGo {
		if n <= 5 && n > nGo {
			nGo = n
		}
	}
	for _, x := range []struct {
		name, cache string
		files       []string
	}{
		{"5 WAT echo guests", "cold-W-5", p.watCopies[1:6]},
		{fmt.Sprintf("%d Go echo guests", nGo), fmt.Sprintf("cold-G-%d", nGo), p.goEcho[1 : nGo+1]},
		{"native go-sdk echo", "", nil},
	} {
		argv := append([]string{p.mcpwasm, "serve", "--log-level", "warn", "--cache-dir", filepath.Join(p.dir, x.cache)}, x.files...)
		if x.files == nil {
			argv = []string{p.native}
		}
		s, _, err := bench.ColdStart(ctx, nil, argv...)
		if err != nil {
			return err
		}
		time.Sleep(time.Second)
		pr, err := bench.ReadProc(s.Pid())
		s.Close()
		if err != nil {
			return err
		}
		fmt.Printf("| %s | %s | %s |\n", x.name, mb(pr.RSS), mb(pr.HWM))
	}
	fmt.Println()

	fmt.Println("| server | calls | RSS after warm-up | RSS after half | RSS after all | peak RSS |")
	fmt.Println("|---|--:|--:|--:|--:|--:|")
	args := json.RawMessage(bench.Args(100))
	for _, x := range []struct {
		sv    server
		total int
	}{{p.servers()[1], c.soakWat}, {p.servers()[2], c.soakGo}, {p.servers()[0], c.soakNative}} {
		s, err := bench.StartServer(ctx, nil, x.sv.argv...)
		if err != nil {
			return err
		}
		r0, err := bench.Load(s, x.sv.tool, args, 8, 1, time.Minute)
		if err != nil {
			s.Close()
			return err
		}
		r1, err := bench.Load(s, x.sv.tool, args, 8, x.total/2, 5*time.Minute)
		if err != nil {
			s.Close()
			return err
		}
		r2, err := bench.Load(s, x.sv.tool, args, 8, x.total/2, 5*time.Minute)
		pr, _ := bench.ReadProc(s.Pid())
		s.Close()
		if err != nil {
			return err
		}
		fmt.Printf("| %s | %d | %s | %s | %s | %s |\n", x.sv.name, r1.Calls+r2.Calls, mb(r0.RSS), mb(r1.RSS), mb(r2.RSS), mb(pr.HWM))
	}
	return nil
}

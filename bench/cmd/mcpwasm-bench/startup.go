package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mcpwasm/mcpwasm/bench"
)

// startup is section 6 (-startup): cold start with a warm cache and idle memory of the bundled
// server and of 5 and 20 Go guests, for the mcpwasm built from this tree and, with -old, for
// another binary beside it (old beside new, in one run, on one shared compilation cache).
func startup(ctx context.Context, c config, p paths, old string) error {
	step("start fast, stay small (section 6)")
	bins := []struct{ label, path string }{}
	if old != "" {
		bins = append(bins, struct{ label, path string }{"old", old})
	}
	bins = append(bins, struct{ label, path string }{"new", p.mcpwasm})
	cache := filepath.Join(p.dir, "startup-cache")
	reps := 5
	if c.quick {
		reps = 1
	}
	const idle = 3 * time.Second
	fmt.Printf("\n## 6. Start fast, stay small (warm compilation cache)\n\n")
	fmt.Printf("Each server (with `--idle-timeout %v`) is started once untimed (to warm the cache), then %d times;\n"+
		"the median time from process start to the first tools/list reply is shown, with the server's CPU\n"+
		"time (user+sys, median) and RSS at that reply, its RSS 2 s later, and then the latency and server\n"+
		"CPU of the first tools/call (100 B, to the first guest; median). One more start without calls\n"+
		"gives the RSS once idle (%v after the reply). On a shared machine the CPU time is the steadier\n"+
		"number: wall time grows with the load average.\n\n", idle, reps, idle+4*time.Second)
	fmt.Println("| binary | guests | first tools/list (median) | CPU at reply | RSS at reply | RSS 2 s later | RSS once idle | first call | its CPU |")
	fmt.Println("|---|---|--:|--:|--:|--:|--:|--:|--:|")
	sets := []struct {
		name  string
		files []string
	}{{"bundled (2 Go)", nil}, {"5 Go echo", p.goEcho[1:6]}, {"20 Go echo", p.goEcho[1:21]}}
	args := json.RawMessage(bench.Args(100))
	for _, set := range sets {
		for _, b := range bins {
			argv := []string{b.path, "serve", "--log-level", "warn", "--cache-dir", cache}
			if out, _ := exec.Command(b.path, "serve", "-h").CombinedOutput(); strings.Contains(string(out), "idle-timeout") {
				argv = append(argv, "--idle-timeout", idle.String())
			}
			argv = append(argv, set.files...)
			if _, _, err := coldOnce(ctx, argv); err != nil { // warm the cache
				return fmt.Errorf("%s %s: %w", b.label, set.name, err)
			}
			var ds, cpus, firsts, firstCPUs []time.Duration
			var rss, later int64
			for range reps {
				s, d, err := bench.ColdStart(ctx, nil, argv...)
				if err != nil {
					return fmt.Errorf("%s %s: %w", b.label, set.name, err)
				}
				pr, _ := bench.ReadProc(s.Pid())
				time.Sleep(2 * time.Second)
				pl, _ := bench.ReadProc(s.Pid())
				tool, err := firstTool(s)
				var first time.Duration
				if err == nil {
					t0 := time.Now()
					err = s.CallTool(tool, args)
					first = time.Since(t0)
				}
				pc, _ := bench.ReadProc(s.Pid())
				s.Close()
				if err != nil {
					return fmt.Errorf("%s %s: first call: %w", b.label, set.name, err)
				}
				ds, cpus, rss, later = append(ds, d), append(cpus, pr.CPU), max(rss, pr.RSS), max(later, pl.RSS)
				firsts, firstCPUs = append(firsts, first), append(firstCPUs, pc.CPU-pl.CPU)
			}
			s, _, err := bench.ColdStart(ctx, nil, argv...)
			if err != nil {
				return fmt.Errorf("%s %s: %w", b.label, set.name, err)
			}
			time.Sleep(idle + 4*time.Second)
			pi, _ := bench.ReadProc(s.Pid())
			s.Close()
			fmt.Printf("| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", b.label, set.name, dur(median(ds)), dur(median(cpus)),
				mb(rss), mb(later), mb(pi.RSS), dur(median(firsts)), dur(median(firstCPUs)))
		}
	}

	// A burst of calls into every guest (8 in flight each), then idle.
	fmt.Printf("\n5 Go echo guests: a burst of calls into every guest at once (8 in flight per guest), then idle.\n"+
		"The new binary runs with `--idle-timeout %v`; RSS is read %v after the burst.\n\n", idle, idle+3*time.Second)
	fmt.Println("| binary | calls | RSS idle before | RSS after burst | RSS after idle | peak RSS |")
	fmt.Println("|---|--:|--:|--:|--:|--:|")
	perGuest := 400
	if c.quick {
		perGuest = 40
	}
	for _, b := range bins {
		argv := []string{b.path, "serve", "--log-level", "warn", "--cache-dir", cache}
		if out, _ := exec.Command(b.path, "serve", "-h").CombinedOutput(); strings.Contains(string(out), "idle-timeout") {
			argv = append(argv, "--idle-timeout", idle.String())
		}
		argv = append(argv, p.goEcho[1:6]...)
		s, _, err := bench.ColdStart(ctx, nil, argv...)
		if err != nil {
			return fmt.Errorf("%s burst: %w", b.label, err)
		}
		time.Sleep(2 * time.Second)
		p0, _ := bench.ReadProc(s.Pid())
		var wg sync.WaitGroup
		errs := make([]error, 5)
		calls := make([]int, 5)
		for i := range 5 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, tool := bench.GoEchoCopy(nil, i+1)
				r, err := bench.Load(s, tool, args, 8, perGuest, time.Minute)
				errs[i], calls[i] = err, r.Calls+50
			}()
		}
		wg.Wait()
		for _, err := range errs {
			if err != nil {
				s.Close()
				return fmt.Errorf("%s burst: %w", b.label, err)
			}
		}
		p1, _ := bench.ReadProc(s.Pid())
		time.Sleep(idle + 3*time.Second)
		p2, _ := bench.ReadProc(s.Pid())
		s.Close()
		total := 0
		for _, n := range calls {
			total += n
		}
		fmt.Printf("| %s | %d | %s | %s | %s | %s |\n", b.label, total, mb(p0.RSS), mb(p1.RSS), mb(p2.RSS), mb(p2.HWM))
	}
	return nil
}

func median(ds []time.Duration) time.Duration {
	slices.Sort(ds)
	return ds[len(ds)/2]
}

// firstTool is the name of the server's "echo" tool, a Go echo copy's or the bundled "sha256", or its
// first tool: each takes {"text": string}.
func firstTool(s *bench.Server) (string, error) {
	res, err := s.Call("tools/list", map[string]any{})
	if err != nil {
		return "", err
	}
	var list struct {
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(res, &list); err != nil || len(list.Tools) == 0 {
		return "", fmt.Errorf("tools/list: %s", res)
	}
	for _, t := range list.Tools {
		if t.Name == "echo" || t.Name == "sha256" || strings.HasPrefix(t.Name, "gecho") {
			return t.Name, nil
		}
	}
	return list.Tools[0].Name, nil
}

// firstList (-firstlist): the bundled server (calc and text, Go guests) against a server of one
// WAT guest (testdata/wat/echo.wasm), process start to the first tools/list reply over stdio,
// warm compilation cache: one untimed start each, then reps starts each, alternating; medians.
// It measures the verdict "bundled first tools/list ≤ 1.5× one WAT guest".
func firstList(ctx context.Context, c config, p paths) error {
	step("bundled server against one WAT guest: first tools/list")
	cache := filepath.Join(p.dir, "firstlist-cache")
	reps := 7
	if c.quick {
		reps = 1
	}
	servers := []struct {
		name string
		argv []string
	}{
		{"bundled (calc, text)", []string{p.mcpwasm, "serve", "--log-level", "warn", "--cache-dir", cache}},
		{"one WAT guest (echo.wasm)", []string{p.mcpwasm, "serve", "--log-level", "warn", "--cache-dir", cache, p.watEcho}},
	}
	for _, s := range servers {
		if _, _, err := coldOnce(ctx, s.argv); err != nil { // warm the cache
			return fmt.Errorf("%s: %w", s.name, err)
		}
	}
	ds := make([][]time.Duration, len(servers))
	for range reps {
		for i, s := range servers {
			d, _, err := coldOnce(ctx, s.argv)
			if err != nil {
				return fmt.Errorf("%s: %w", s.name, err)
			}
			ds[i] = append(ds[i], d)
		}
	}
	fmt.Printf("\n## 8. First tools/list: the bundled server against one WAT guest\n\n"+
		"Process start to the first tools/list reply over stdio, warm compilation cache, %d starts each\n"+
		"(alternating, after one untimed start each); medians.\n\n", reps)
	fmt.Println("| server | first tools/list (median) | × one WAT guest |")
	fmt.Println("|---|--:|--:|")
	wat := median(ds[1])
	for i, s := range servers {
		m := median(ds[i])
		fmt.Printf("| %s | %s | %.2f× |\n", s.name, dur(m), float64(m)/float64(wat))
	}
	return nil
}

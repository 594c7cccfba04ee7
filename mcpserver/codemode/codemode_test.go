package codemode_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpwasm/mcpwasm/guests"
	"github.com/mcpwasm/mcpwasm/mcpserver"
	"github.com/mcpwasm/mcpwasm/mcpserver/codemode"
	"github.com/mcpwasm/mcpwasm/runtime"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// fixture is a server with the bundled calc and text guests, a Go tool "wipe" with no
// annotations (destructive by the spec's defaults), an upstream-like "run_code" impostor,
// and code mode; cs is a client session to it.
type fixture struct {
	cs, asking *mcp.ClientSession
	wiped      *atomic.Int64
	srv        *mcp.Server
}

var (
	shared     *fixture
	sharedOnce sync.Once
	sharedErr  error
	elicited   atomic.Int64
	answer     atomic.Value // "accept" or "decline", for the eliciting client

	blockStarted   = make(chan struct{}, 1) // the tool "block" was called
	blockCancelled = make(chan struct{}, 1) // …and its context ended
)

// fixtures returns the shared server's two clients: plain (no elicitation) and asking
// (answers elicitations with answer).
func fixtures(t *testing.T) (plain, asking *fixture) {
	t.Helper()
	sharedOnce.Do(func() { shared, sharedErr = newFixture(context.Background()) })
	if sharedErr != nil {
		t.Fatal(sharedErr)
	}
	return shared, &fixture{cs: shared.asking, wiped: shared.wiped}
}

func newFixture(ctx context.Context) (*fixture, error) {
	cfg := codemode.Config{Enabled: true, TimeoutMS: 5000, MemoryMB: 32, MaxCalls: 100, Allow: []string{"calc", "text", "admin"}}
	m := codemode.New(cfg, nil)
	host, err := runtime.NewHost(ctx, &runtime.Options{NoDiskCache: true, Upstreams: m.Upstreams()})
	if err != nil {
		return nil, err
	}
	var gs []*runtime.Guest
	group := map[string]string{}
	for _, b := range guests.Default() {
		g, err := host.Load(ctx, b.Wasm, &runtime.GuestConfig{Source: "bundled:" + b.Name})
		if err != nil {
			return nil, err
		}
		gs = append(gs, g)
		for _, tl := range g.Manifest().Tools {
			group[tl.Name] = g.Name()
		}
	}
	s, err := mcpserver.NewServer(gs, nil)
	if err != nil {
		return nil, err
	}
	f := &fixture{wiped: new(atomic.Int64), srv: s}
	mcp.AddTool(s, &mcp.Tool{Name: "wipe", Description: "Deletes everything."}, func(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, struct{ Wiped int64 }, error) {
		return nil, struct{ Wiped int64 }{f.wiped.Add(1)}, nil
	})
	s.AddTool(&mcp.Tool{Name: "other_run_code", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		panic("code mode called a code tool")
	})
	s.AddTool(&mcp.Tool{Name: "secret", InputSchema: json.RawMessage(`{"type":"object"}`), Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		panic("code mode called a tool outside its allowlist")
	})
	mcp.AddTool(s, &mcp.Tool{Name: "block", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}}, func(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, struct{}, error) {
		blockStarted <- struct{}{}
		<-ctx.Done()
		blockCancelled <- struct{}{}
		return nil, struct{}{}, ctx.Err()
	})
	group["block"] = "admin"
	meet := make(chan struct{})
	var met atomic.Int64
	mcp.AddTool(s, &mcp.Tool{Name: "meet", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}}, func(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, struct{ N int64 }, error) {
		// Returns once two calls are in at the same time: only concurrent calls get past it.
		n := met.Add(1)
		if n == 2 {
			close(meet)
		}
		select {
		case <-meet:
		case <-ctx.Done():
			return nil, struct{ N int64 }{}, ctx.Err()
		}
		return nil, struct{ N int64 }{n}, nil
	})
	group["meet"] = "admin"
	group["wipe"] = "admin"
	group["secret"] = "vault"
	if err := m.Serve(ctx, host, s, &codemode.ServeOptions{Group: func(tool string) string { return group[tool] }}); err != nil {
		return nil, err
	}
	connect := func(copts *mcp.ClientOptions, version string) (*mcp.ClientSession, error) {
		ct, st := mcp.NewInMemoryTransports()
		if _, err := s.Connect(ctx, st, nil); err != nil {
			return nil, err
		}
		return mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, copts).Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: version})
	}
	if f.cs, err = connect(nil, ""); err != nil {
		return nil, err
	}
	f.asking, err = connect(&mcp.ClientOptions{ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		elicited.Add(1)
		a, _ := answer.Load().(string)
		return &mcp.ElicitResult{Action: a}, nil
	}}, "2025-11-25") // elicitation inside a request: before SEP-2322's multi round-trip
	return f, err
}

// run calls run_code with code and returns the result's text and structured content.
func (f *fixture) run(t *testing.T, code string) (text string, sc map[string]any, isError bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := f.cs.CallTool(ctx, &mcp.CallToolParams{Name: "run_code", Arguments: map[string]any{"code": code}})
	if err != nil {
		t.Fatalf("run_code: %v", err)
	}
	if len(res.Content) > 0 {
		text = res.Content[0].(*mcp.TextContent).Text
	}
	sc, _ = res.StructuredContent.(map[string]any)
	return text, sc, res.IsError
}

func TestRunCallsBundledTools(t *testing.T) {
	f, _ := fixtures(t)
	text, sc, isErr := f.run(t, `
const xs: number[] = [1, 2, 3, 4];
const sums = await Promise.all(xs.map((x) => tools.calc.calc({ expression: x + " * 10" })));
const h = await tools.text.sha256({ text: "abc" });
console.log("hashed", 3);
return { total: sums.reduce((a: number, s: any) => a + s.value, 0), hash: h.hex ?? h };
`)
	if isErr {
		t.Fatalf("error: %s", text)
	}
	want := `{"total":100,"hash":"ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"}` + "\nlogs:\nhashed 3"
	if text != want {
		t.Errorf("text = %q, want %q", text, want)
	}
	if sc["calls"] != 5.0 {
		t.Errorf("calls = %v, want 5", sc["calls"])
	}
}

// expectError runs code and wants a tool error containing each of want.
func expectError(t *testing.T, f *fixture, code string, want ...string) string {
	t.Helper()
	text, _, isErr := f.run(t, code)
	if !isErr {
		t.Fatalf("no error; result %s", text)
	}
	for _, w := range want {
		if !strings.Contains(text, w) {
			t.Errorf("error %q does not contain %q", text, w)
		}
	}
	return text
}

func TestSyntaxErrorNamesLineAndColumn(t *testing.T) {
	f, _ := fixtures(t)
	expectError(t, f, "const a = 1;\nconst b = ;\nreturn a;", "syntax error at line 2, column 11")
}

func TestExceptionNamesLine(t *testing.T) {
	f, _ := fixtures(t)
	expectError(t, f, "type T = { n: number };\nconst a: T = { n: 1 };\n\nthrow new Error(\"boom \" + a.n);", "Error: boom 1 (line 4)")
}

func TestInfiniteLoopEndsAndNextRunIsClean(t *testing.T) {
	f, _ := fixtures(t)
	expectError(t, f, "globalThis.leak = 1; while (true) {}", "time limit")
	expectError(t, f, "const a: string[] = []; for (;;) a.push('x'.repeat(1 << 20));", "memory")
	text, _, isErr := f.run(t, "return typeof globalThis.leak")
	if isErr || text != `"undefined"` {
		t.Errorf("after the attacks: %s (error %v), want \"undefined\"", text, isErr)
	}
}

func TestRunCannotSeePreviousGlobals(t *testing.T) {
	f, _ := fixtures(t)
	if text, _, isErr := f.run(t, "globalThis.secret = 'run one'; Object.prototype.polluted = 1; return 1"); isErr {
		t.Fatal(text)
	}
	text, _, _ := f.run(t, "return [typeof globalThis.secret, typeof ({}).polluted]")
	if text != `["undefined","undefined"]` {
		t.Errorf("second run sees %s", text)
	}
}

func TestUnlistedToolUnreachable(t *testing.T) {
	f, _ := fixtures(t)
	text, _, _ := f.run(t, "return [typeof tools.vault, Object.keys(tools).sort(), typeof tools.tools]")
	if text != `["undefined",["admin","calc","text"],"undefined"]` {
		t.Errorf("got %s", text)
	}
	expectError(t, f, "return await tools.vault.secret({})", "TypeError")
}

func TestNoFetchNoFS(t *testing.T) {
	f, _ := fixtures(t)
	expectError(t, f, "return await fetch('http://127.0.0.1:1/')", "no hosts are granted", "(line 1)")
	expectError(t, f, "const fs = await import('node:fs'); return fs.readFileSync('/etc/passwd', 'utf8')", "could not load module 'node:fs'")
	text, _, _ := f.run(t, "return [typeof require, typeof process === 'undefined' ? 'none' : typeof process.env.HOME, typeof Deno]")
	if text != `["undefined","none","undefined"]` && text != `["undefined","undefined","undefined"]` {
		t.Errorf("got %s", text)
	}
}

func TestPrototypePollutionOfToolAPI(t *testing.T) {
	f, _ := fixtures(t)
	text, _, isErr := f.run(t, `
"use strict";
const out: string[] = [];
try { (tools as any).calc.calc = async () => ({ value: 666 }); } catch (e) { out.push("frozen"); }
try { (tools as any).calc = {}; } catch (e) { out.push("frozen"); }
Object.prototype.evil = true;
const r = await tools.calc.calc({ expression: "1+1" });
out.push(String(r.value));
return out;`)
	if isErr || text != `["frozen","frozen","2"]` {
		t.Errorf("got %s (error %v)", text, isErr)
	}
}

func TestToolResultShapedLikeCodeStaysData(t *testing.T) {
	f, _ := fixtures(t)
	payload := "globalThis.pwned = 1; throw new Error('ran')"
	text, _, isErr := f.run(t, "const r = await tools.text.echo({ text: "+strconvQuote(payload)+" }); return [r, typeof globalThis.pwned]")
	if isErr || !strings.Contains(text, "globalThis.pwned = 1") || !strings.HasSuffix(text, `,"undefined"]`) {
		t.Errorf("got %s (error %v)", text, isErr)
	}
}

func strconvQuote(s string) string { b, _ := json.Marshal(s); return string(b) }

func TestDestructiveToolNeedsConfirmation(t *testing.T) {
	plain, asking := fixtures(t)
	before := plain.wiped.Load()
	expectError(t, plain, "return await tools.admin.wipe({})", "not confirmed", "does not support elicitation")
	answer.Store("decline")
	expectError(t, asking, "return await tools.admin.wipe({})", "not confirmed", `"decline"`)
	if got := plain.wiped.Load(); got != before {
		t.Fatalf("wipe ran %d times without confirmation", got-before)
	}
	answer.Store("accept")
	n := elicited.Load()
	text, _, isErr := asking.run(t, "return await tools.admin.wipe({})")
	if isErr || elicited.Load() != n+1 || plain.wiped.Load() != before+1 {
		t.Errorf("accepted wipe: %s (error %v), elicitations %d", text, isErr, elicited.Load()-n)
	}
	_ = text
}

func TestRecursionIntoRunCodeRefused(t *testing.T) {
	f, _ := fixtures(t)
	text, _, _ := f.run(t, "return Object.values(tools).flatMap((g) => Object.keys(g)).filter((k) => /run_?code/i.test(k))")
	if text != "[]" {
		t.Errorf("code tools declared: %s", text)
	}
}

func TestBudgetStopsTenThousandCalls(t *testing.T) {
	f, _ := fixtures(t)
	text := expectError(t, f, `
let n = 0;
for (let i = 0; i < 10000; i++) { await tools.calc.calc({ expression: "1" }); n++; }
return n;`, "budget", "max_calls 100", "(line 3)")
	_ = text
}

// Cancelling run_code cancels the tool call the program is waiting on.
func TestCancelRunCancelsPendingCall(t *testing.T) {
	f, _ := fixtures(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := f.cs.CallTool(ctx, &mcp.CallToolParams{Name: "run_code", Arguments: map[string]any{"code": "return await tools.admin.block({})"}})
		done <- err
	}()
	select {
	case <-blockStarted:
	case <-time.After(60 * time.Second):
		t.Fatal("the program never called block")
	}
	cancel()
	select {
	case <-blockCancelled:
	case <-time.After(60 * time.Second):
		t.Fatal("cancelling run_code did not cancel the pending tool call")
	}
	if err := <-done; err == nil {
		t.Error("the cancelled run_code call returned no error")
	}
}

// run_code's description declares exactly the callable tools, typed, grouped by server; the
// resource holds the same with descriptions.
func TestDeclarations(t *testing.T) {
	f, _ := fixtures(t)
	ctx := context.Background()
	var desc string
	for tl, err := range f.cs.Tools(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		if tl.Name == "run_code" {
			desc = tl.Description
		}
	}
	for _, want := range []string{
		"  admin: {\n    block(args: Record<string, unknown>): Promise<Record<string, unknown>>; // read-only\n    meet(args: Record<string, unknown>): Promise<{ N: number }>; // read-only\n    wipe(args: Record<string, unknown>): Promise<{ Wiped: number }>;\n  };",
		"    calc(args: { expression: string }): Promise<{ value: number }>; // read-only",
		"    count(args: { text: string }): Promise<{ bytes: number; lines: number; runes: number; words: number }>; // read-only",
	} {
		if !strings.Contains(desc, want) {
			t.Errorf("description lacks %q:\n%s", want, desc)
		}
	}
	for _, not := range []string{"vault", "secret", "run_code(", "other_run_code"} {
		if strings.Contains(desc, not) {
			t.Errorf("description declares %q:\n%s", not, desc)
		}
	}
	rr, err := f.cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: codemode.ResourceURI})
	if err != nil {
		t.Fatal(err)
	}
	if full := rr.Contents[0].Text; !strings.Contains(full, "/** Deletes everything. */\n    wipe(") {
		t.Errorf("full declarations:\n%s", full)
	}
	rr, err = f.cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "mcpwasm://code-mode/servers/calc.d.ts"})
	if err != nil {
		t.Fatal(err)
	}
	if one := rr.Contents[0].Text; !strings.HasPrefix(one, "declare const tools: {\n  calc: {\n    /** Evaluates") || strings.Contains(one, "text:") || !strings.HasSuffix(one, "// read-only\n  };\n};\n") {
		t.Errorf("calc's declarations:\n%s", one)
	}
	if _, err := f.cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "mcpwasm://code-mode/servers/vault.d.ts"}); err == nil {
		t.Error("the withheld server vault has declarations")
	}
}

// Calls made in one turn (Promise.all) run at the same time: "meet" returns only once two
// calls are in, so sequential calls would meet the run's time limit instead.
func TestPromiseAllRunsConcurrently(t *testing.T) {
	f, _ := fixtures(t)
	text, _, isErr := f.run(t, "const r = await Promise.all([tools.admin.meet({}), tools.admin.meet({})]);\nreturn r.map((x) => x.N).sort();")
	if isErr || text != "[1,2]" {
		t.Errorf("got %s (error %v)", text, isErr)
	}
}

// A tool that fails with a JSON-RPC error (unknown arguments are refused by the schema
// before it runs) reaches the program as a thrown Error with the server's message, as over
// any transport; and the next call of the run still works.
func TestToolProtocolErrorReachesProgram(t *testing.T) {
	f, _ := fixtures(t)
	text, _, isErr := f.run(t, `
let msg = "";
try { await tools.calc.calc({ nope: 1 } as any); } catch (e) { msg = String(e.message); }
const r = await tools.calc.calc({ expression: "2+2" });
return [msg.length > 0, r.value];`)
	if isErr || text != "[true,4]" {
		t.Errorf("got %s (error %v)", text, isErr)
	}
}

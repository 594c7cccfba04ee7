package main

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	"github.com/mcpwasm/mcpwasm/guests"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// serve --code-mode over stdio, through the Go SDK's client: run_code's description declares
// the bundled guests' tools grouped by guest, and a program calls calc and text and returns
// what it computed.
func TestServeCodeModeStdio(t *testing.T) {
	ctx := testContext(t)
	cmd := exec.Command(binPath, "serve", "--cache-dir", cacheDir, "--code-mode")
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "0"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	var desc string
	for tl, err := range cs.Tools(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		if tl.Name == "run_code" {
			desc = tl.Description
		}
	}
	for _, want := range []string{"  calc: {\n    calc(args: { expression: string })", "  text: {\n", "    sha256(args: { text: string })"} {
		if !strings.Contains(desc, want) {
			t.Errorf("run_code's description lacks %q:\n%s", want, desc)
		}
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "run_code", Arguments: map[string]any{"code": `
const ids: number[] = [1, 2, 3, 4, 5, 6];
const even = ids.filter((i) => i % 2 === 0);
const r = await tools.calc.calc({ expression: even.join(" + ") });
const n = await tools.text.count({ text: "a b c" });
console.log("even", even.length);
return { sum: r.value, words: n.words };`}})
	if err != nil {
		t.Fatal(err)
	}
	got := res.Content[0].(*mcp.TextContent).Text
	if res.IsError || got != "{\"sum\":12,\"words\":3}\nlogs:\neven 3" {
		t.Errorf("run_code: %q (isError %v)", got, res.IsError)
	}
}

// The fixed workload, through real servers: mcpwasm serving calc and exposing
// @modelcontextprotocol/server-everything (under Node) as the upstream "everything". One
// run_code program calls get-resource-reference for resources 1–50, keeps those whose text
// names an even id, sums them with calc (650). Beside it a scripted client does the same
// through direct tool calls, sequentially and 8 at a time. The bytes of tool definitions and
// results reaching the client must be ≥ 90% fewer with code mode; times are logged.
func TestCodeModeWorkloadEverything(t *testing.T) {
	everythingJS := everything(t)
	ctx := testContext(t)
	dir := t.TempDir()
	calcPath := filepath.Join(dir, "calc.wasm")
	if err := os.WriteFile(calcPath, guests.Default()[0].Wasm, 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, _ := json.Marshal(map[string]any{
		"guests":    []any{map[string]any{"path": calcPath}},
		"upstreams": map[string]any{"everything": map[string]any{"command": []string{"node", everythingJS, "stdio"}, "expose": true}},
		"code_mode": map[string]any{"enabled": true},
	})
	cfgPath := filepath.Join(dir, "mcpwasm.json")
	if err := os.WriteFile(cfgPath, cfg, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(binPath, "serve", "--cache-dir", cacheDir, "--config", cfgPath)
	changed := make(chan struct{}, 1)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "0"}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
			select {
			case changed <- struct{}{}:
			default: // one pending wake-up is enough
			}
		},
	}).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	const ref = "everything__get-resource-reference"
	// The upstream's tools arrive after initialize: wait for them (and for run_code to declare them).
	var defs map[string]*mcp.Tool
	for {
		defs = map[string]*mcp.Tool{}
		for tl, err := range cs.Tools(ctx, nil) {
			if err != nil {
				t.Fatal(err)
			}
			defs[tl.Name] = tl
		}
		if defs[ref] != nil && defs["run_code"] != nil && strings.Contains(defs["run_code"].Description, "getResourceReference(") {
			break
		}
		select {
		case <-changed:
		case <-ctx.Done():
			t.Fatalf("the upstream's tools never arrived: %v", defs)
		}
	}
	size := func(v any) int { b, _ := json.Marshal(v); return len(b) }
	call := func(name string, args map[string]any) (*mcp.CallToolResult, int) {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil || res.IsError {
			t.Fatalf("%s: %v %v", name, err, res)
		}
		return res, size(res)
	}
	idRE := regexp.MustCompile(`Resource (\d+)`)
	evenOf := func(res *mcp.CallToolResult) int {
		for _, c := range res.Content {
			if tc, ok := c.(*mcp.TextContent); ok {
				if m := idRE.FindStringSubmatch(tc.Text); m != nil {
					if n, _ := strconv.Atoi(m[1]); n%2 == 0 {
						return n
					}
					return 0
				}
			}
		}
		return 0
	}
	sumCalc := func(ids []int) (float64, int) {
		parts := make([]string, len(ids))
		for i, n := range ids {
			parts[i] = strconv.Itoa(n)
		}
		res, n := call("calc", map[string]any{"expression": strings.Join(parts, "+")})
		return res.StructuredContent.(map[string]any)["value"].(float64), n
	}
	call(ref, map[string]any{"resourceId": 1}) // warm: the upstream and calc are started, the runner has run once
	call("run_code", map[string]any{"code": "return await tools.calc.calc({ expression: '1' })"})
	sumCalc([]int{1})

	direct := func(width int) (sum float64, bytes int, took time.Duration) {
		start := time.Now()
		results := make([]*mcp.CallToolResult, 50)
		sizes := make([]int, 50)
		sem := make(chan struct{}, width)
		var wg sync.WaitGroup
		for i := range 50 {
			wg.Add(1)
			sem <- struct{}{}
			go func() {
				defer wg.Done()
				defer func() { <-sem }()
				results[i], sizes[i] = call(ref, map[string]any{"resourceId": i + 1})
			}()
		}
		wg.Wait()
		var ids []int
		for i, r := range results {
			bytes += sizes[i]
			if n := evenOf(r); n > 0 {
				ids = append(ids, n)
			}
		}
		sum, n := sumCalc(ids)
		bytes += n
		for name, d := range defs {
			if name != "run_code" {
				bytes += size(d)
			}
		}
		return sum, bytes, time.Since(start)
	}
	program := `
const refs = await Promise.all(Array.from({ length: 50 }, (_, i) =>
  tools.everything.getResourceReference({ resourceType: "Text", resourceId: i + 1 })));
const even = refs
  .map((text: string) => Number(/Resource (\d+)/.exec(text)?.[1]))
  .filter((id: number) => id % 2 === 0);
const { value } = await tools.calc.calc({ expression: even.join("+") });
return value;`
	codeMode := func() (got string, bytes int, took time.Duration) {
		start := time.Now()
		res, n := call("run_code", map[string]any{"code": program})
		took = time.Since(start)
		return res.Content[0].(*mcp.TextContent).Text, n + size(defs["run_code"]), took
	}
	// Rounds of the three variants, interleaved so a busy machine slows each alike; the
	// medians are compared (MCPWASM_WORKLOAD_ROUNDS overrides the three rounds).
	rounds := 3
	if n, err := strconv.Atoi(os.Getenv("MCPWASM_WORKLOAD_ROUNDS")); err == nil && n > 0 {
		rounds = n
	}
	var seqTimes, parTimes, codeTimes []time.Duration
	var seqBytes, parBytes, codeBytes int
	for range rounds {
		seqSum, sb, st := direct(1)
		parSum, pb, pt := direct(8)
		got, cb, ct := codeMode()
		if got != "650" || seqSum != 650 || parSum != 650 {
			t.Fatalf("sums: code mode %s, direct %v and %v; want 650", got, seqSum, parSum)
		}
		seqTimes, parTimes, codeTimes = append(seqTimes, st), append(parTimes, pt), append(codeTimes, ct)
		seqBytes, parBytes, codeBytes = sb, pb, cb
	}
	med := func(ds []time.Duration) time.Duration { ds = slices.Clone(ds); slices.Sort(ds); return ds[len(ds)/2] }
	codeTime, seqTime, parTime := med(codeTimes), med(seqTimes), med(parTimes)
	saved := 1 - float64(codeBytes)/float64(min(seqBytes, parBytes))
	t.Logf("bytes to the client: code mode %d, direct %d (%.1f%% fewer); median time of %d rounds: code mode %v, direct sequential %v, direct 8 at a time %v (%.2f× the faster); code mode rounds %v, direct 8 at a time %v",
		codeBytes, seqBytes, saved*100, rounds, codeTime, seqTime, parTime, float64(codeTime)/float64(min(seqTime, parTime)), codeTimes, parTimes)
	if saved < 0.90 {
		t.Errorf("code mode saves %.1f%% of the bytes, want ≥ 90%%", saved*100)
	}
}

// Through the MCP Inspector CLI (stdio): run_code runs a program calling calc.
func TestInspectorRunCode(t *testing.T) {
	var res struct {
		Content []struct {
			Type, Text string
		} `json:"content"`
		StructuredContent struct {
			Result float64  `json:"result"`
			Logs   []string `json:"logs"`
			Calls  int      `json:"calls"`
		} `json:"structuredContent"`
		IsError bool `json:"isError"`
	}
	runInspector(t, &res, "--code-mode", "--method", "tools/call", "--tool-name", "run_code", "--tool-arg",
		"code=const r: { value: number } = await tools.calc.calc({ expression: '6*7' }); console.log('got', r.value); return r.value")
	if res.IsError || res.StructuredContent.Result != 42 || res.StructuredContent.Calls != 1 || len(res.Content) != 1 || res.Content[0].Text != "42\nlogs:\ngot 42" {
		t.Errorf("run_code through the Inspector: %+v", res)
	}
}

// serve --http --code-mode: run_code over Streamable HTTP through the Go SDK's client.
func TestServeCodeModeHTTP(t *testing.T) {
	base, _ := startHTTP(t, "--code-mode")
	cs := connectSDK(t, base+"/mcp")
	res, err := cs.CallTool(testContext(t), &mcp.CallToolParams{Name: "run_code", Arguments: map[string]any{"code": `
const [a, b] = await Promise.all([tools.calc.calc({ expression: "2^10" }), tools.text.sha256({ text: "" })]);
return [a.value, b.hex.slice(0, 8)];`}})
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Content[0].(*mcp.TextContent).Text; res.IsError || got != `[1024,"e3b0c442"]` {
		t.Errorf("run_code over HTTP: %q (isError %v)", got, res.IsError)
	}
}

// codeModeProgram is what the real clients run: a typed program calling two guests at once.
const codeModeProgram = `const [a, b]: [{ value: number }, { hex: string }] = await Promise.all([
  tools.calc.calc({ expression: "6*7" }), tools.text.sha256({ text: "" })]);
console.log("hex", b.hex.slice(0, 8));
return a.value;`

// Through the TypeScript SDK's client, over stdio and Streamable HTTP: run_code declares calc
// in its description and its resource, and runs a program calling calc and text.
func TestCodeModeTypeScriptClient(t *testing.T) {
	script, err := filepath.Abs("../../testdata/interop/codemode-client.mjs")
	if err != nil {
		t.Fatal(err)
	}
	for _, transport := range []string{"stdio", "http"} {
		t.Run(transport, func(t *testing.T) {
			npmTool(t, "@modelcontextprotocol/sdk/package.json")
			args := []string{script, "stdio", binPath, "serve", "--cache-dir", cacheDir, "--code-mode"}
			if transport == "http" {
				base, _ := startHTTP(t, "--code-mode")
				args = []string{script, "http", base + "/mcp"}
			}
			cmd := exec.CommandContext(testContext(t), "node", args...)
			cmd.Env = append(os.Environ(), "MCPWASM_CODE="+codeModeProgram)
			out, err := cmd.Output()
			if err != nil {
				var stderr []byte
				if ee, ok := err.(*exec.ExitError); ok {
					stderr = ee.Stderr
				}
				t.Fatalf("node codemode-client.mjs: %v\n%s\n%s", err, out, stderr)
			}
			var got struct {
				Declares, Resource bool
				Result             struct {
					IsError           bool `json:"isError"`
					Content           []struct{ Type, Text string }
					StructuredContent struct {
						Result float64  `json:"result"`
						Logs   []string `json:"logs"`
						Calls  int      `json:"calls"`
					} `json:"structuredContent"`
				}
			}
			if err := json.Unmarshal(out, &got); err != nil {
				t.Fatalf("output: %v\n%s", err, out)
			}
			r := got.Result
			if !got.Declares || !got.Resource || r.IsError || len(r.Content) != 1 || r.Content[0].Text != "42\nlogs:\nhex e3b0c442" ||
				r.StructuredContent.Result != 42 || r.StructuredContent.Calls != 2 {
				t.Errorf("TypeScript client over %s: %s", transport, out)
			}
		})
	}
}

// Through the MCP Inspector CLI over Streamable HTTP (stdio: TestInspectorRunCode).
func TestInspectorRunCodeHTTP(t *testing.T) {
	index := inspectorCLI(t)
	base, _ := startHTTP(t, "--code-mode")
	cmd := exec.CommandContext(testContext(t), "node", index, base+"/mcp", "--transport", "http",
		"--method", "tools/call", "--tool-name", "run_code", "--tool-arg", "code="+codeModeProgram)
	cmd.Dir = filepath.Dir(index)
	out, err := cmd.Output()
	if err != nil {
		var stderr []byte
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		t.Fatalf("inspector: %v\n%s\n%s", err, out, stderr)
	}
	var res struct {
		Content           []struct{ Type, Text string } `json:"content"`
		StructuredContent struct {
			Result float64 `json:"result"`
			Calls  int     `json:"calls"`
		} `json:"structuredContent"`
		IsError bool `json:"isError"`
	}
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("inspector output is not JSON: %v\n%s", err, out)
	}
	if res.IsError || res.StructuredContent.Result != 42 || res.StructuredContent.Calls != 2 || len(res.Content) != 1 || res.Content[0].Text != "42\nlogs:\nhex e3b0c442" {
		t.Errorf("run_code through the Inspector over HTTP: %s", out)
	}
}

// serve --http with http_auth's policy and code mode: run_code declares to an identity only
// what the policy grants it, and its runs can call only that.
func TestServeCodeModeHTTPPolicy(t *testing.T) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	jwks := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = json.NewEncoder(w).Encode(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: &key.PublicKey, KeyID: "k", Algorithm: "ES256", Use: "sig"}}})
	}))
	defer jwks.Close()
	const resource = "http://mcp.test/mcp"
	dir := t.TempDir()
	var gs []any
	for _, bg := range guests.Default() {
		if bg.Name == "calc" || bg.Name == "text" {
			p := filepath.Join(dir, bg.Name+".wasm")
			if err := os.WriteFile(p, bg.Wasm, 0o644); err != nil {
				t.Fatal(err)
			}
			gs = append(gs, map[string]any{"name": bg.Name, "path": p})
		}
	}
	b, _ := json.Marshal(map[string]any{
		"guests":    gs,
		"code_mode": map[string]any{"enabled": true},
		"http_auth": map[string]any{"resource": resource,
			"issuers": []any{map[string]any{"issuer": jwks.URL, "jwks_uri": jwks.URL, "algorithms": []string{"ES256"}}},
			"policy":  []any{map[string]any{"name": "calculators", "groups": []string{"eng"}, "guests": []string{"calc"}, "tools": []string{"run_code"}}}},
	})
	path := filepath.Join(dir, "mcpwasm.json")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	base, _ := startHTTP(t, "--config", path)
	sig, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: key}, (&jose.SignerOptions{}).WithHeader("kid", "k"))
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	tok, err := jwt.Signed(sig).Claims(map[string]any{"iss": jwks.URL, "sub": "alice", "aud": resource, "groups": []string{"eng"},
		"exp": now.Add(5 * time.Minute).Unix(), "iat": now.Unix()}).Serialize()
	if err != nil {
		t.Fatal(err)
	}
	ctx := testContext(t)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "0"}, nil).Connect(ctx,
		&mcp.StreamableClientTransport{Endpoint: base + "/mcp", HTTPClient: &http.Client{Transport: bearerRT(tok)}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	lr, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	desc := ""
	for _, tl := range lr.Tools {
		names = append(names, tl.Name)
		if tl.Name == "run_code" {
			desc = tl.Description
		}
	}
	if got := strings.Join(names, ","); got != "calc,run_code" {
		t.Errorf("alice lists %s, want calc,run_code", got)
	}
	if !strings.Contains(desc, "  calc: {\n") || strings.Contains(desc, "  text: {") {
		t.Errorf("run_code's description for alice:\n%s", desc)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "run_code", Arguments: map[string]any{"code": "return [Object.keys(tools), (await tools.calc.calc({ expression: '6*7' })).value]"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Content[0].(*mcp.TextContent).Text; res.IsError || got != `[["calc"],42]` {
		t.Errorf("alice's run: %s (error %v), want [[\"calc\"],42]", got, res.IsError)
	}
}

type bearerRT string

func (b bearerRT) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+string(b))
	return http.DefaultTransport.RoundTrip(r)
}

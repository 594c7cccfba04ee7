package quickjs

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// probesFile holds JavaScript expressions with the answers Node gave them
// (testdata/engine-probes/gen.mjs wrote it, TZ=UTC; its "node" field names the version).
var probesFile = filepath.Join("..", "..", "..", "..", "testdata", "engine-probes", "probes.json")

// engineDifferences are the probes whose answers differ from Node's in the pinned engine and
// are not patched in the shim: locale-aware comparison and formatting (the engine has no
// Intl: localeCompare compares code units, toLocaleString formats as toString) and
// structuredClone, which it lacks. docs/npm.md lists them.
var engineDifferences = map[string]bool{
	`"a".localeCompare("B")`: true,
	`["b", "a", "C"].sort((x, y) => x.localeCompare(y)).join("")`:                           true,
	`(1234567.891).toLocaleString("en-US")`:                                                 true,
	`"İstanbul".toLocaleLowerCase("tr").length`:                                             true,
	`"abc".localeCompare("ABC", undefined, { sensitivity: "base" })`:                        true,
	`"a10".localeCompare("a9", undefined, { numeric: true })`:                               true,
	`new Intl.NumberFormat("en-US", { style: "currency", currency: "USD" }).format(1234.5)`: true,
	`new Intl.DateTimeFormat("en-US", { timeZone: "UTC" }).format(new Date(0))`:             true,
	`typeof Intl`: true,
	`structuredClone === undefined ? "missing" : typeof structuredClone`: true,
}

// Every probe answers in the engine (with the shim) as in Node, but for the listed
// differences; and each listed difference still differs (a fixed one leaves the list).
func TestEngineProbes(t *testing.T) {
	raw, err := os.ReadFile(probesFile)
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Node   string
		Probes []struct{ Expr, Want string }
	}
	if err := json.Unmarshal(raw, &f); err != nil {
		t.Fatal(err)
	}
	if len(f.Probes) < 200 {
		t.Fatalf("%d probes, want at least 200", len(f.Probes))
	}
	exprs := make([]string, len(f.Probes))
	for i, p := range f.Probes {
		exprs[i] = p.Expr
	}
	list, _ := json.Marshal(exprs)
	script := `
const { McpServer } = globalThis.__mcpwasm.sdk;
const server = new McpServer({ name: "probes", version: "1" });
const exprs = ` + string(list) + `;
server.registerTool("probes", { description: "each probe's answer" }, () => {
  const out = exprs.map((e) => {
    try {
      const v = (0, eval)(e);
      return typeof v === "string" ? JSON.stringify(v) : String(v);
    } catch (err) {
      return "throws " + err.name;
    }
  });
  return { content: [{ type: "text", text: JSON.stringify(out) }] };
});
`
	call := &Call{}
	vm := start(t, script, call, 64<<20)
	if _, err := run(t, vm, call, EntryDescribe, nil); err != nil {
		t.Fatal(err)
	}
	out, err := run(t, vm, call, EntryCallTool, map[string]any{"name": "probes"})
	if err != nil {
		t.Fatal(err)
	}
	var r struct{ Content []struct{ Text string } }
	if err := json.Unmarshal(out, &r); err != nil || len(r.Content) != 1 {
		t.Fatalf("probes: %s, %v", out, err)
	}
	var got []string
	if err := json.Unmarshal([]byte(r.Content[0].Text), &got); err != nil || len(got) != len(f.Probes) {
		t.Fatalf("probes: %s, %v", r.Content[0].Text, err)
	}
	var diff []string
	for i, p := range f.Probes {
		same := got[i] == p.Want
		switch {
		case !same && !engineDifferences[p.Expr]:
			diff = append(diff, p.Expr+"\n\tengine: "+got[i]+"\n\tnode "+f.Node+": "+p.Want)
		case same && engineDifferences[p.Expr]:
			t.Errorf("%s now answers as Node (%s): take it off engineDifferences and the guide", p.Expr, got[i])
		}
	}
	if len(diff) > 0 {
		t.Errorf("%d of %d probes differ from Node:\n%s", len(diff), len(f.Probes), strings.Join(diff, "\n"))
	}
}

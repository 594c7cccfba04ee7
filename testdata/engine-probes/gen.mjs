// Writes probes.json: each expression of exprs.txt (one a line) with the answer of the Node
// that runs this script, as String(value) (a throw as "throws NAME"). Run with TZ=UTC under
// Node 22, e.g. the one testdata/conformance/client's lockfile pins (npm ci there first):
//   TZ=UTC testdata/conformance/client/node_modules/.bin/node testdata/engine-probes/gen.mjs
// The test runs the same expressions in mcpwasm's engine (runtime/internal/kind/quickjs).
import { readFileSync, writeFileSync } from "node:fs";
const here = new URL(".", import.meta.url);
const exprs = readFileSync(new URL("exprs.txt", here), "utf8").split("\n").filter((l) => l.trim() !== "" && !l.startsWith("#"));
const run = (e) => {
  try {
    const v = (0, eval)(e);
    return typeof v === "string" ? JSON.stringify(v) : String(v);
  } catch (err) {
    return "throws " + err.name;
  }
};
const out = { node: process.version, probes: exprs.map((expr) => ({ expr, want: run(expr) })) };
writeFileSync(new URL("probes.json", here), JSON.stringify(out, null, 1) + "\n");
console.log(`${exprs.length} probes, ${process.version}`);

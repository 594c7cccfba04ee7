// Start-to-first-call benchmark of an npm MCP server, mcpwasm beside Node (issue #40):
//   node client.mjs RUNS CALLS TOOL ARGS_JSON -- COMMAND ARGS...
// Each of RUNS times it spawns COMMAND over stdio with the TypeScript SDK client and records
// spawn → connect (initialize answered) and connect → the first answered tools/call of TOOL;
// the last run then makes CALLS sequential calls and records calls/s. It prints one JSON line:
// {"initialize": [ms…], "first": [ms…], "total": [ms…], "callsPerSec": n}. A call that errs
// fails the run (exit 1). The SDK is loaded from MCPWASM_INTEROP_MODULES.
import { pathToFileURL } from "node:url";
import { join } from "node:path";

const modules = process.env.MCPWASM_INTEROP_MODULES;
const sdk = (p) => import(pathToFileURL(join(modules, "@modelcontextprotocol/sdk/dist/esm", p)).href);
const { Client } = await sdk("client/index.js");
const { StdioClientTransport } = await sdk("client/stdio.js");

const argv = process.argv.slice(2);
const sep = argv.indexOf("--");
const [runs, calls, tool, argsJSON] = argv.slice(0, sep);
const [command, ...args] = argv.slice(sep + 1);
const toolArgs = JSON.parse(argsJSON);
const out = { initialize: [], first: [], total: [], callsPerSec: 0 };

const call = async (client) => {
  const r = await client.callTool({ name: tool, arguments: toolArgs });
  if (r.isError) throw new Error(`${tool}: ${JSON.stringify(r.content)}`);
  return r;
};

for (let i = 0; i < Number(runs); i++) {
  const client = new Client({ name: "npmstart-bench", version: "0" });
  const t0 = performance.now();
  await client.connect(new StdioClientTransport({ command, args, stderr: "ignore" }));
  const t1 = performance.now();
  await call(client);
  const t2 = performance.now();
  out.initialize.push(+(t1 - t0).toFixed(1));
  out.first.push(+(t2 - t1).toFixed(1));
  out.total.push(+(t2 - t0).toFixed(1));
  if (i === Number(runs) - 1 && Number(calls) > 0) {
    const s = performance.now();
    for (let j = 0; j < Number(calls); j++) await call(client);
    out.callsPerSec = Math.round(Number(calls) / ((performance.now() - s) / 1000));
  }
  await client.close();
}
process.stdout.write(JSON.stringify(out) + "\n");

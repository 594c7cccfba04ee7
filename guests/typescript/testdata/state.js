// A test guest for mcpwasm's JavaScript kind (guests/typescript_test.go): what a call leaves
// in its instance (a counter) and what Math.random draws, to tell instances restored from a
// snapshot apart. Built by the test with node mcpwasm/build.mjs testdata/state.js OUT.wasm
// (in guests/typescript).
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import * as z from "zod/v4";

const server = new McpServer({ name: "state", version: "1.0.0" });
// What the guest asks for: the clock only (the build would infer random from Math.random,
// and a pool with the random grant is never snapshotted).
globalThis.__mcpwasm.requests = { clock: true };
let calls = 0;
const atStart = Math.random();
server.registerTool("state", { description: "counts its calls and draws a number" }, async () => {
  calls++;
  return { content: [{ type: "text", text: JSON.stringify({ calls, atStart, random: Math.random() }) }] };
});
// The shim answers a call at once when it can and through the job queue when it must: a
// handler that returns no promise, one whose zod shape has an async refinement, one that
// throws before returning, and one that reads extra.signal (made when first read).
server.registerTool("sync", { description: "answers without a promise" }, () => ({ content: [{ type: "text", text: "sync" }] }));
server.registerTool(
  "refined",
  { inputSchema: { name: z.string().refine(async (s) => s !== "nobody", "nobody is not a name") } },
  ({ name }) => ({ content: [{ type: "text", text: "hi " + name }] }),
);
server.registerTool("throws", { description: "throws at once" }, () => {
  throw new Error("thrown at once");
});
server.registerTool("signal", { description: "reads extra.signal" }, async (extra) => ({
  content: [{ type: "text", text: `${extra.signal.aborted} ${extra.signal === extra.signal} ${typeof extra.signal.addEventListener}` }],
}));
await server.connect();

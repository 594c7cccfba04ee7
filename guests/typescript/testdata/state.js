// A test guest for mcpwasm's JavaScript kind (guests/typescript_test.go): what a call leaves
// in its instance (a counter) and what Math.random draws, to tell instances restored from a
// snapshot apart. Built by the test with node mcpwasm/build.mjs testdata/state.js OUT.wasm
// (in guests/typescript).
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";

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
await server.connect();

// A test guest for mcpwasm's JavaScript kind (guests/typescript_test.go): its top level
// fetches, as a server that loads a remote list at start does, and keeps what happened.
// Built by the test with node mcpwasm/build.mjs testdata/startfetch.js OUT.wasm (in
// guests/typescript).
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";

let atStart;
try {
  atStart = await (await fetch("http://127.0.0.1:9/list")).text();
} catch (e) {
  atStart = String(e.message);
}
const server = new McpServer({ name: "startfetch", version: "1.0.0" });
server.registerTool("at_start", { description: "what the start's fetch got" }, async () => ({
  content: [{ type: "text", text: atStart }],
}));
await server.connect();

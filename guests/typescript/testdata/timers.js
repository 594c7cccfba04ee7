// A test guest for mcpwasm's JavaScript kind (guests/typescript_test.go): a tool that waits
// on a timer and reports how long Date.now says it waited. Its requests are read off this
// file by the build (setTimeout, Date.now → clock). Built by the test with
// node mcpwasm/build.mjs testdata/timers.js OUT.wasm (in guests/typescript).
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import * as z from "zod/v4";

const server = new McpServer({ name: "timers", version: "1.0.0" });
server.registerTool("wait", { inputSchema: { ms: z.number() } }, async ({ ms }) => {
  const t0 = Date.now();
  await new Promise((resolve) => setTimeout(resolve, ms));
  const waited = Date.now() - t0;
  return { content: [{ type: "text", text: waited >= ms ? "waited" : `waited=${waited}ms` }] };
});
await server.connect();

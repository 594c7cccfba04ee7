// A test guest for mcpwasm's JavaScript kind (runtime/names_test.go): names the TypeScript SDK
// serves under Node but outside mcpwasm's ^[a-zA-Z0-9_-]{1,64}$ — a display name for the
// server, a tool with a dot, a tool of 100 characters, a prompt with a dot. Built by the test
// with node mcpwasm/build.mjs testdata/names.js OUT.wasm (in guests/typescript).
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { completable } from "@modelcontextprotocol/sdk/server/completable.js";
import * as z from "zod/v4";

const server = new McpServer({ name: "Weather Server", version: "1.0.0" });
server.registerTool("files.read", { inputSchema: { path: z.string() } }, ({ path }) => ({
  content: [{ type: "text", text: "files.read " + path }],
}));
server.registerTool("read_" + "x".repeat(95), { description: "a name of 100 characters" }, () => ({
  content: [{ type: "text", text: "long" }],
}));
server.registerTool("plain", { description: "a name that fits" }, () => ({ content: [{ type: "text", text: "plain" }] }));
server.registerPrompt(
  "greet.formal",
  { argsSchema: { who: completable(z.string(), (v) => ["Ada", "Alan"].filter((n) => n.startsWith(v))) } },
  ({ who }) => ({ messages: [{ role: "user", content: { type: "text", text: "Good day, " + who } }] }),
);
await server.connect();

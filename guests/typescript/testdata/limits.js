// A test guest for mcpwasm's JavaScript kind (guests/typescript_test.go): tools that spin,
// exhaust memory, throw, echo, fetch and read the environment. Built by the test with
// node mcpwasm/build.mjs testdata/limits.js OUT.wasm (in guests/typescript).
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import * as z from "zod/v4";

const server = new McpServer({ name: "limits", version: "1.0.0" });
// What the guest asks for (build.mjs takes it from package.json's "mcpwasm" field; a test
// fixture sets it here).
globalThis.__mcpwasm.requests = { net: ["*", "127.0.0.1:*", "localhost:*"], env: ["MCPWASM_JS_TEST"] };
const text = (t) => ({ content: [{ type: "text", text: t }] });

server.registerTool("echo", { inputSchema: { text: z.string() } }, async ({ text: t }) => text(t));
server.registerTool("spin", { description: "never returns" }, () => {
  for (;;) {}
});
server.registerTool("hog", { description: "allocates without end" }, () => {
  const a = [];
  for (;;) a.push(new Array(1 << 18).fill(a.length));
});
server.registerTool("boom", { description: "throws" }, async () => {
  await Promise.resolve();
  throw new Error("boom: the handler threw");
});
server.registerTool("fetch", { inputSchema: { url: z.string() } }, async ({ url }) => {
  const r = await fetch(url);
  return text(`${r.status} ${await r.text()}`);
});
server.registerTool("env", { inputSchema: { name: z.string() } }, async ({ name }) => text(String(process.env[name])));
server.registerTool("log", { description: "logs through console" }, async () => {
  console.warn("careful", { n: 1 });
  return text("logged");
});

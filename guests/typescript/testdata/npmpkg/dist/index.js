#!/usr/bin/env node
// A published-style server (guests/npm_test.go, built with build.mjs --package): it reads its
// own package.json with createRequire, a data file relative to import.meta.url, imports one
// of its modules dynamically, uses the SDK's older server.tool/resource/prompt API, and
// overrides tools/list through McpServer.server.setRequestHandler.
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { createRequire } from "node:module";
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { z } from "zod";

const require = createRequire(import.meta.url);
const pkg = require("../package.json");
const here = dirname(fileURLToPath(import.meta.url));
const hello = readFileSync(new URL("../data/hello.txt", import.meta.url), "utf8").trim();

const server = new McpServer({ name: "selfread", version: pkg.version });
server.tool("about", "What the package read of itself", async () => {
  const { extra } = await import("./extra.js");
  let write = "";
  try {
    writeFileSync(join(here, "..", "data", "x.txt"), "no");
  } catch (e) {
    write = e.code;
  }
  return { content: [{ type: "text", text: JSON.stringify({ version: pkg.version, hello, here, extra, write }) }] };
});
server.tool("echo", "Echoes", { text: z.string() }, async ({ text }) => ({ content: [{ type: "text", text }] }));
server.resource("readme", "selfread://readme", async (uri) => ({ contents: [{ uri: uri.href, text: hello }] }));
server.prompt("ask", "Asks", { topic: z.string() }, ({ topic }) => ({ messages: [{ role: "user", content: { type: "text", text: "About " + topic } }] }));
// tools/list through the low-level handler (the calls still go to McpServer's own tools).
server.server.setRequestHandler(ListToolsRequestSchema, async () => ({
  tools: [{ name: "about", description: "What the package read of itself", inputSchema: { type: "object", properties: {} } }, { name: "echo", description: "Echoes (listed by the low-level handler)", inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] } }],
}));
await server.connect(new StdioServerTransport());

// An MCP Apps server written as for Node with @modelcontextprotocol/ext-apps' server helpers:
// mcpwasm's build maps @modelcontextprotocol/ext-apps/server to its shim (abi/js/build.mjs).
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { registerAppResource, registerAppTool, RESOURCE_MIME_TYPE } from "@modelcontextprotocol/ext-apps/server";
import { z } from "zod";

const server = new McpServer({ name: "tsapp", version: "1.0.0" });
const uri = "ui://tsapp/greet.html";

registerAppTool(
  server,
  "greet",
  {
    title: "Greet",
    description: "Greets someone; shows a view where hosts support MCP Apps.",
    inputSchema: { name: z.string() },
    _meta: { ui: { resourceUri: uri }, "com.example/origin": "tsapp" },
  },
  async ({ name }) => ({ content: [{ type: "text", text: `hello, ${name}` }] }),
);

registerAppResource(server, "greet view", uri, { description: "The greeting view", _meta: { ui: { prefersBorder: true } } }, async () => ({
  contents: [
    {
      uri,
      mimeType: RESOURCE_MIME_TYPE,
      text: "<!doctype html><title>greet</title><p id=greeting>hello</p>",
      _meta: { ui: { prefersBorder: true, csp: { connectDomains: [] } } },
    },
  ],
}));

await server.connect(new StdioServerTransport());

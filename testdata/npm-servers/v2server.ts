// A server written as the TypeScript SDK v2 documentation shows (@modelcontextprotocol/server
// 2.4.0, which package.json pins): McpServer, registerTool with a z.object input schema, the stdio transport. mcpwasm
// build takes the whole-server path for it (it carries its own SDK).
import { McpServer } from "@modelcontextprotocol/server";
import { StdioServerTransport } from "@modelcontextprotocol/server/stdio";
import * as z from "zod/v4";

const server = new McpServer({ name: "v2-demo", version: "1.0.0" });

server.registerTool(
  "add",
  {
    title: "Addition Tool",
    description: "Add two numbers",
    inputSchema: z.object({ a: z.number(), b: z.number() }),
    outputSchema: z.object({ result: z.number() }),
  },
  async ({ a, b }) => {
    const output = { result: a + b };
    return { content: [{ type: "text", text: JSON.stringify(output) }], structuredContent: output };
  },
);

// A timer that runs between calls: the server says it is alive once after start.
setTimeout(() => {
  server.sendLoggingMessage({ level: "info", data: "ticked" }).catch(() => {});
}, 50);

const transport = new StdioServerTransport();
await server.connect(transport);

// The peer of mcpwasm's JavaScript-guest benchmark (bench/cmd/mcpwasm-bench, section 9): the
// echo tool of guests/typescript/testdata/limits.js served by Node with the real TypeScript
// SDK (pinned in package.json here), over stdio.
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import * as z from "zod/v4";

const server = new McpServer({ name: "limits", version: "1.0.0" });
server.registerTool("echo", { inputSchema: { text: z.string() } }, async ({ text }) => ({ content: [{ type: "text", text }] }));
await server.connect(new StdioServerTransport());

// An MCP server for the TypeScript SDK whose tool's input schema has a pattern Go's regexp
// cannot compile (lookahead): cmd/mcpwasm's TestPatternLeftToJavaScriptGuest builds it with
// guests/typescript's mcpwasm/build.mjs (node mcpwasm/build.mjs ABS/pattern-server.js
// OUT.wasm, in guests/typescript) and serves it: the host leaves the pattern to the guest,
// whose zod refuses a wrong argument.
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import * as z from "zod/v4";

const server = new McpServer({ name: "imp", version: "1.0.0" });
server.registerTool(
  "pw",
  { inputSchema: { pw: z.string().regex(/^(?=.*\d)(?=.*[a-z]).{8,}$/), note: z.string().max(3).optional() } },
  async ({ pw }) => ({ content: [{ type: "text", text: `ok ${pw.length}` }] }),
);
// A regex with a flag (JSON Schema's pattern has none: the schema leaves it to zod) and one
// with a Unicode property Go's regexp does not know (z.emoji(): left to the guest).
server.registerTool(
  "hex",
  { inputSchema: { v: z.string().regex(/^[0-9a-f]+$/i).regex(/^..+$/), e: z.string().emoji().optional() } },
  async ({ v, e }) => ({ content: [{ type: "text", text: `hex ${v}${e ? " " + e : ""}` }] }),
);

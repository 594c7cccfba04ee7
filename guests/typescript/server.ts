// An MCP server written for the TypeScript SDK, served by mcpwasm as one sandboxed .wasm:
//
//   npm ci && npm run build          # typescript.wasm: the engine + this file, bundled
//   mcpwasm serve typescript.wasm    # fetch needs a net grant: --grant-net api.example.com
//
// The SDK's imports below are pointed at mcpwasm's shim by the build (mcpwasm/build.mjs), so
// the same file also runs under Node with the real SDK.
import { McpServer, ResourceTemplate } from "@modelcontextprotocol/sdk/server/mcp.js";
import { completable } from "@modelcontextprotocol/sdk/server/completable.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import * as z from "zod/v4";

const server = new McpServer({ name: "typescript", version: "0.1.0" });

server.registerTool(
  "greet",
  {
    title: "Greet",
    description: "Greets someone by name",
    inputSchema: { name: z.string().min(1).describe("who to greet"), times: z.number().int().min(1).max(3).default(1) },
    outputSchema: { greeting: z.string() },
    annotations: { readOnlyHint: true, openWorldHint: false },
  },
  async ({ name, times }) => {
    const greeting = Array(times).fill(`hello, ${name}`).join(" ");
    return { content: [{ type: "text", text: greeting }], structuredContent: { greeting } };
  },
);

server.registerTool(
  "fetch_text",
  {
    description: "Fetches a URL and returns the first 2000 characters of its body (needs a net grant)",
    inputSchema: { url: z.url().describe("an http or https URL") },
  },
  async ({ url }, { signal }) => {
    const res = await fetch(url, { signal });
    const text = await res.text();
    return { content: [{ type: "text", text: `${res.status} ${text.slice(0, 2000)}` }], isError: !res.ok };
  },
);

server.registerResource(
  "note",
  new ResourceTemplate("note://{id}", {
    list: undefined,
    complete: { id: (value) => ["1", "2", "42"].filter((id) => id.startsWith(value)) },
  }),
  { title: "A note", mimeType: "text/plain" },
  async (uri, { id }) => ({ contents: [{ uri: uri.href, text: `note ${id}` }] }),
);

server.registerPrompt(
  "review",
  {
    description: "Asks for a code review",
    argsSchema: {
      code: z.string(),
      language: completable(z.string().optional(), (value) => ["go", "rust", "typescript"].filter((l) => l.startsWith(value ?? ""))),
    },
  },
  ({ code, language }) => ({
    messages: [{ role: "user", content: { type: "text", text: `Please review${language ? ` this ${language}` : ""}:\n\n${code}` } }],
  }),
);

await server.connect(new StdioServerTransport());

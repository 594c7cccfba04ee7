// An MCP server written for the TypeScript SDK whose resource templates answer with what
// their handler received: the URL's href and the template variables. cmd/mcpwasm's
// TestResourceTemplatesMatchNode runs it on Node with the real SDK and, built with
// guests/typescript's mcpwasm/build.mjs, under `mcpwasm serve`, and compares the answers.
import { McpServer, ResourceTemplate } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";

const server = new McpServer({ name: "templates", version: "1.0.0" });
const templates = {
  note: "note://{id}",
  profile: "users://{name}/profile",
  file: "file:///{+path}",
  page: "https://example.com/wiki/{page}",
  search: "search://q{?q,lang}",
  doc: "doc://{path*}",
  opaque: "tag:{id}",
};
for (const [name, t] of Object.entries(templates)) {
  server.registerResource(name, new ResourceTemplate(t, { list: undefined }), { mimeType: "application/json" }, async (uri, vars) => ({
    contents: [{ uri: uri.href, mimeType: "application/json", text: JSON.stringify({ template: name, href: uri.href, host: uri.host, pathname: uri.pathname, search: uri.search, vars }) }],
  }));
}
await server.connect(new StdioServerTransport());

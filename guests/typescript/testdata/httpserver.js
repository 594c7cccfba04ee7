// A test guest for mcpwasm's build (guests/typescript_test.go): a server that runs its own
// HTTP transport. The shim cannot serve it (the host is the transport): the build fails
// naming the import and the path the package needs.
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import http from "node:http";

const server = new McpServer({ name: "http", version: "0.1.0" });
http.createServer(async (req, res) => {
  const t = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
  await server.connect(t);
  await t.handleRequest(req, res);
}).listen(3000);

// A test guest for mcpwasm's JavaScript kind (guests/typescript_test.go): a server that reads
// a file with node:fs's readFileSync at start, over the fs grant. Without a grant for /etc
// the load fails naming the file.
import { readFileSync } from "node:fs";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";

const cfg = readFileSync("/etc/hostname", "utf8");
const server = new McpServer({ name: "readfilesync", version: "1.0.0" });
server.registerTool("host", { description: "the host name read at start" }, async () => ({ content: [{ type: "text", text: cfg.trim() }] }));
await server.connect();

// A test guest for mcpwasm's JavaScript kind (guests/typescript_test.go): a server that runs
// a command at start (node:child_process has no sandbox meaning: the build links a stub and
// warns; the stub's throw fails the load naming the module and why).
import { execSync } from "node:child_process";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";

const who = execSync("whoami").toString();
const server = new McpServer({ name: "childprocess", version: "1.0.0" });
server.registerTool("who", { description: "who ran the start" }, async () => ({ content: [{ type: "text", text: who }] }));
await server.connect();

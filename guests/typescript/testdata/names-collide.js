// A test guest for mcpwasm's JavaScript kind (runtime/names_test.go): "a.b" is served as
// "a_b_2e7336dc" (abi.MapName), which is also the name of the guest's second tool, so the
// load is refused. Built by the test with node mcpwasm/build.mjs testdata/names-collide.js
// OUT.wasm (in guests/typescript).
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";

const server = new McpServer({ name: "collide", version: "1.0.0" });
server.registerTool("a.b", {}, () => ({ content: [{ type: "text", text: "a.b" }] }));
server.registerTool("a_b_2e7336dc", {}, () => ({ content: [{ type: "text", text: "a_b_2e7336dc" }] }));
await server.connect();

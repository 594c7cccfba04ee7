// A test guest for mcpwasm's JavaScript kind (guests/typescript_test.go): a script that draws
// from every random source at its top level, as a server file drawing a secret or an ID once
// at start does. Built by the test with node mcpwasm/build.mjs testdata/randstart.js OUT.wasm
// (in guests/typescript); the build infers the random request.
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";

const server = new McpServer({ name: "randstart", version: "1.0.0" });
const atStart = [crypto.randomUUID(), crypto.getRandomValues(new Uint8Array(8)).join(","), Math.random()].join(" ");
server.registerTool("start", { description: "what the script's start drew" }, async () => ({
  content: [{ type: "text", text: atStart }],
}));
await server.connect();

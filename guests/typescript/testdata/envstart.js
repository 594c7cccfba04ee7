// A test guest for mcpwasm's JavaScript kind (guests/typescript_test.go): a script that reads
// a granted environment variable once, at start, as many server files read their API keys.
// Built by the test with node mcpwasm/build.mjs testdata/envstart.js OUT.wasm (in
// guests/typescript).
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";

const server = new McpServer({ name: "envstart", version: "1.0.0" });
globalThis.__mcpwasm.requests = { env: ["MCPWASM_SNAPSHOT_ENV"] };
const atStart = process.env.MCPWASM_SNAPSHOT_ENV ?? "unset";
server.registerTool("env", { description: "the variable as the script's start read it" }, async () => ({
  content: [{ type: "text", text: atStart }],
}));
await server.connect();

// A test guest for mcpwasm's JavaScript kind (runtime/admission_internal_test.go): tool "touch"
// reports its resource test://a updated once. Built by the test with
// node mcpwasm/build.mjs testdata/updated.js OUT.wasm (in guests/typescript).
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";

const server = new McpServer({ name: "updated", version: "1.0.0" });
server.registerResource("a", "test://a", { mimeType: "text/plain" }, async () => ({
  contents: [{ uri: "test://a", text: "a" }],
}));
server.registerTool("touch", { description: "reports test://a updated" }, async (extra) => {
  await extra.sendNotification({ method: "notifications/resources/updated", params: { uri: "test://a" } });
  return { content: [{ type: "text", text: "touched" }] };
});
await server.connect({});

// A test guest for mcpwasm's JavaScript kind (guests/typescript_test.go): every handler runs
// with the guest's grants, as a Node server's handlers run with its process's environment.
// Its top level refuses to start without API_KEY (as published servers do with their keys);
// a resource fetches, a prompt and a tool read the environment.
// Built by the test with node mcpwasm/build.mjs testdata/grants.js OUT.wasm (in
// guests/typescript).
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";

const key = process.env.API_KEY;
if (!key) throw new Error("API_KEY is not set");

const server = new McpServer({ name: "grants", version: "1.0.0" });
server.registerResource("weather", "weather://oslo", { mimeType: "text/plain" }, async (uri) => {
  const r = await fetch(process.env.WEATHER_URL + "?city=Oslo");
  return { contents: [{ uri: uri.href, text: `${r.status} ${await r.text()}` }] };
});
server.registerPrompt("team", { argsSchema: { topic: z.string() } }, ({ topic }) => ({
  messages: [{ role: "user", content: { type: "text", text: `team=${process.env.TEAM ?? "unset"} topic=${topic}` } }],
}));
server.registerTool("team_tool", { description: "the environment in a tool" }, async () => ({
  content: [{ type: "text", text: `team=${process.env.TEAM ?? "unset"} key=${key.length}` }],
}));
await server.connect();

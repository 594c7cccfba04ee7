// replicas-client.mjs URL: the TypeScript MCP SDK's client (pinned in package.json) against a
// Streamable HTTP endpoint — cmd/mcpwasm's replica test points it at a load balancer in front
// of several `mcpwasm serve --http --stateless` replicas. It lists the tools, calls calc three
// times and prints {"tools": [names, sorted], "results": [CallToolResult, …]} as one JSON line.
// With MCPWASM_HTTP_TOKEN set, it sends it as a bearer token (.ci/container.sh: containers
// behind nginx).
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const client = new Client({ name: "mcpwasm-replicas-test", version: "0.0.0" });
const token = process.env.MCPWASM_HTTP_TOKEN;
const requestInit = token ? { headers: { Authorization: `Bearer ${token}` } } : undefined;
await client.connect(new StreamableHTTPClientTransport(new URL(process.argv[2]), { requestInit }));
const { tools } = await client.listTools();
const results = [];
for (let i = 0; i < 3; i++) {
  results.push(await client.callTool({ name: "calc", arguments: { expression: "2*(3+4)^2" } }));
}
console.log(JSON.stringify({ tools: tools.map((t) => t.name).sort(), results }));
await client.close();

// A TypeScript-SDK MCP client for the npm servers built by mcpwasm build (npm_test.go):
//   node npm-client.mjs TOOL ARGS_JSON stdio COMMAND ARGS...
//   node npm-client.mjs TOOL ARGS_JSON http URL
// It lists the tools, calls TOOL with ARGS_JSON and prints {"tools": [names], "result": …} as
// JSON on stdout. The SDK is loaded from the directory in MCPWASM_INTEROP_MODULES
// (testdata/interop/node_modules).
import { pathToFileURL } from "node:url";
import { join } from "node:path";

const modules = process.env.MCPWASM_INTEROP_MODULES;
const sdk = (p) => import(pathToFileURL(join(modules, "@modelcontextprotocol/sdk/dist/esm", p)).href);
const { Client } = await sdk("client/index.js");

const [tool, argsJSON, mode, target, ...rest] = process.argv.slice(2);
const client = new Client({ name: "ts-npm-interop", version: "0" });
if (mode === "http") {
  const { StreamableHTTPClientTransport } = await sdk("client/streamableHttp.js");
  await client.connect(new StreamableHTTPClientTransport(new URL(target)));
} else {
  const { StdioClientTransport } = await sdk("client/stdio.js");
  await client.connect(new StdioClientTransport({ command: target, args: rest, stderr: "ignore" }));
}
const { tools } = await client.listTools();
const result = await client.callTool({ name: tool, arguments: JSON.parse(argsJSON) });
process.stdout.write(JSON.stringify({ tools: tools.map((t) => t.name), result }) + "\n");
await client.close();

// codemode-client.mjs stdio CMD ARGS… | http URL: the TypeScript MCP SDK's client (pinned in
// package.json) against `mcpwasm serve --code-mode`, over stdio (it starts CMD) or Streamable
// HTTP. It reads run_code's description and the declarations resource, runs the program in
// env MCPWASM_CODE through run_code and prints {"declares": bool, "resource": bool,
// "result": CallToolResult} as one JSON line: declares/resource say whether the description
// and the resource declare calc.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const [mode, target, ...rest] = process.argv.slice(2);
const transport =
  mode === "stdio"
    ? new StdioClientTransport({ command: target, args: rest, stderr: "ignore" })
    : new StreamableHTTPClientTransport(new URL(target));
const client = new Client({ name: "mcpwasm-codemode-test", version: "0.0.0" });
await client.connect(transport);
const { tools } = await client.listTools();
const run = tools.find((t) => t.name === "run_code");
const decl = "calc(args: { expression: string })";
const res = await client.readResource({ uri: "mcpwasm://code-mode/tools.d.ts" });
const result = await client.callTool({ name: "run_code", arguments: { code: process.env.MCPWASM_CODE } });
console.log(
  JSON.stringify({
    declares: !!run && run.description.includes(decl),
    resource: res.contents.some((c) => c.text.includes(decl)),
    result,
  }),
);
await client.close();

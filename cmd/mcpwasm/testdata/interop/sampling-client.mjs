// A TypeScript-SDK MCP client with a sampling handler that answers a fixed text. It spawns
// the server given as argv[3..] over stdio, calls the tool argv[2] with {"text": "interop"},
// and prints the tool result as JSON on stdout. argv[1]... is this script; the SDK is loaded
// from the directory in MCPWASM_INTEROP_MODULES (testdata/interop/node_modules).
import { pathToFileURL } from "node:url";
import { join } from "node:path";

const modules = process.env.MCPWASM_INTEROP_MODULES;
const sdk = (p) => import(pathToFileURL(join(modules, "@modelcontextprotocol/sdk/dist/esm", p)).href);
const { Client } = await sdk("client/index.js");
const { StdioClientTransport } = await sdk("client/stdio.js");
const { CreateMessageRequestSchema } = await sdk("types.js");

const [tool, command, ...args] = process.argv.slice(2);
const client = new Client({ name: "ts-interop", version: "0" }, { capabilities: { sampling: {} } });
client.setRequestHandler(CreateMessageRequestSchema, async (req) => ({
  role: "assistant",
  model: "ts-model",
  stopReason: "endTurn",
  content: { type: "text", text: "answer from the TypeScript client (" + req.params.messages.length + " message)" },
}));
await client.connect(new StdioClientTransport({ command, args, stderr: "inherit" }));
const result = await client.callTool({ name: tool, arguments: { text: "interop" } });
process.stdout.write(JSON.stringify(result) + "\n");
await client.close();

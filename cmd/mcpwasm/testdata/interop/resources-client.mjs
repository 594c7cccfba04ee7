// A TypeScript-SDK MCP client that reads resources: node resources-client.mjs URI… -- SERVER
// ARGS… spawns the server over stdio, reads each URI in turn and prints one JSON array of
// {"uri", "text"} (the first content's text) or {"uri", "error"} (the error's message). The
// SDK is loaded from the directory in MCPWASM_INTEROP_MODULES (testdata/interop/node_modules).
import { pathToFileURL } from "node:url";
import { join } from "node:path";

const modules = process.env.MCPWASM_INTEROP_MODULES;
const sdk = (p) => import(pathToFileURL(join(modules, "@modelcontextprotocol/sdk/dist/esm", p)).href);
const { Client } = await sdk("client/index.js");
const { StdioClientTransport } = await sdk("client/stdio.js");

const argv = process.argv.slice(2);
const sep = argv.indexOf("--");
const [uris, [command, ...args]] = [argv.slice(0, sep), argv.slice(sep + 1)];
const client = new Client({ name: "ts-interop", version: "0" });
await client.connect(new StdioClientTransport({ command, args, stderr: "inherit" }));
const out = [];
for (const uri of uris) {
  try {
    const r = await client.readResource({ uri });
    out.push({ uri, text: r.contents[0].text });
  } catch (e) {
    out.push({ uri, error: e.message });
  }
}
process.stdout.write(JSON.stringify(out) + "\n");
await client.close();

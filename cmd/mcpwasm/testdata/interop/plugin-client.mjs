// A TypeScript-SDK MCP client that drives whatever a server offers, the way an application
// built on the SDK would: node plugin-client.mjs stdio -- SERVER ARGS… spawns the server over
// stdio; node plugin-client.mjs http URL connects over Streamable HTTP. It sets the log level
// to info, lists tools, calls "log" and "echo" if listed (echo with a progress callback), and,
// as the server's capabilities say, lists and gets prompts ("greet"), lists resources and
// templates and reads mem://notes/7, and completes greet's "who". It prints one JSON object
// of what it saw. The SDK is loaded from the directory in MCPWASM_INTEROP_MODULES.
import { pathToFileURL } from "node:url";
import { join } from "node:path";

const modules = process.env.MCPWASM_INTEROP_MODULES;
const sdk = (p) => import(pathToFileURL(join(modules, "@modelcontextprotocol/sdk/dist/esm", p)).href);
const { Client } = await sdk("client/index.js");
const { LoggingMessageNotificationSchema } = await sdk("types.js");

const argv = process.argv.slice(2);
let transport;
if (argv[0] === "http") {
  const { StreamableHTTPClientTransport } = await sdk("client/streamableHttp.js");
  transport = new StreamableHTTPClientTransport(new URL(argv[1]));
} else {
  const { StdioClientTransport } = await sdk("client/stdio.js");
  const [command, ...args] = argv.slice(argv.indexOf("--") + 1);
  transport = new StdioClientTransport({ command, args, stderr: "inherit" });
}
const client = new Client({ name: "ts-interop", version: "0" });
// The SDK drops a progress notification that it processes after the call's response (it
// deletes the handler on the response and reports the notification as an error), which on a
// pipe happens when both arrive in one read: typescript-sdk#2580, a race the server cannot
// avoid. Such a report is kept as progress that came late.
const late = [];
client.onerror = (e) => {
  const m = /^Received a progress notification for an unknown token: (.*)$/s.exec(e.message);
  if (m) late.push(JSON.parse(m[1]).params.progress);
  else process.stderr.write("client error: " + e.message + "\n");
};
const logs = [];
client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => logs.push(n.params.level + ":" + n.params.data));
await client.connect(transport);
const caps = client.getServerCapabilities() ?? {};
const out = {};
if (caps.logging) await client.setLoggingLevel("info");
out.tools = (await client.listTools()).tools.map((t) => t.name);
const text = (r) => (r.isError ? "error: " : "") + r.content.map((c) => c.text).join("");
if (out.tools.includes("log")) out.log = text(await client.callTool({ name: "log", arguments: {} }));
if (out.tools.includes("echo")) {
  const progress = [];
  out.echo = text(await client.callTool({ name: "echo", arguments: { text: "héllo ✓" } }, undefined, { onprogress: (p) => progress.push(p.progress) }));
  out.progress = progress.concat(late);
}
if (caps.prompts) {
  out.prompts = (await client.listPrompts()).prompts.map((p) => p.name);
  out.prompt = (await client.getPrompt({ name: "greet", arguments: { who: "ann" } })).messages[0].content.text;
}
if (caps.resources) {
  out.resources = (await client.listResources()).resources.map((r) => r.uri);
  out.templates = (await client.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate);
  out.read = (await client.readResource({ uri: "mem://notes/7" })).contents[0].text;
}
if (caps.completions) {
  out.complete = (await client.complete({ ref: { type: "ref/prompt", name: "greet" }, argument: { name: "who", value: "b" } })).completion.values;
}
out.logs = logs;
process.stdout.write(JSON.stringify(out) + "\n");
await client.close();

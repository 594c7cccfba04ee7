// A server using date-fns (guests/npm_test.go): parseISO("nope") must be an Invalid Date, as
// under Node. The engine's setUTCFullYear(NaN, …) kept the time at 0, so it was 1970-01-01
// until the shim patched it.
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { parseISO } from "date-fns";

const server = new McpServer({ name: "dateprobe", version: "0.1.0" });
server.registerTool("probe", { description: "Date probes" }, async () => {
  const p = parseISO("nope");
  const ok = parseISO("2026-12-07T04:05:06Z");
  return { content: [{ type: "text", text: JSON.stringify({ nope: String(p), isNaN: isNaN(p.getTime()), ok: ok.toISOString() }) }] };
});
await server.connect();

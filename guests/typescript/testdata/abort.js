// A test guest for mcpwasm's JavaScript kind (guests/typescript_test.go): handlers that end
// cleanly when extra.signal aborts — at the client's cancellation or as the time limit
// nears. Built by the test with node mcpwasm/build.mjs testdata/abort.js OUT.wasm (in
// guests/typescript).
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import * as z from "zod/v4";

const server = new McpServer({ name: "abort", version: "1.0.0" });
const text = (t) => ({ content: [{ type: "text", text: t }] });

// A long timer, cleared when the signal aborts.
server.registerTool("wait_timer", { description: "waits a minute unless aborted" }, async (extra) => {
  console.log("waiting");
  const how = await new Promise((resolve) => {
    const t = setTimeout(() => resolve("the timer fired"), 60000);
    extra.signal.addEventListener("abort", () => {
      clearTimeout(t);
      resolve(`aborted: ${extra.signal.reason.name}`);
    });
  });
  console.log(`ended cleanly (${how})`);
  return text(how);
});
// A fetch given the signal: it rejects with the signal's reason when the call ends.
server.registerTool("wait_fetch", { inputSchema: { url: z.string() } }, async ({ url }, extra) => {
  console.log("fetching");
  try {
    const r = await fetch(url, { signal: extra.signal });
    return text(`fetched ${r.status}`);
  } catch (e) {
    console.log(`ended cleanly (fetch rejected: ${e.name}, aborted ${extra.signal.aborted})`);
    return text(`fetch rejected: ${e.name}`);
  }
});
// A loop that never awaits: reading signal.aborted asks the host.
server.registerTool("spin_checking", { description: "spins until aborted" }, async (extra) => {
  let n = 0;
  while (!extra.signal.aborted) n++;
  return text(`stopped: ${extra.signal.reason.name}`);
});
// A handler that ignores the signal: the interrupt stops it after the grace.
server.registerTool("ignore", { description: "ignores the signal" }, async () => {
  console.log("waiting");
  for (;;) {}
});

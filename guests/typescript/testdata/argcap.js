// A test guest for the kind suite (runtime/kindsuite_test.go, case "oversized host-call
// argument"): a console.log of 1 MiB, over the cap of one report (kind.MaxReportJSON), which
// the host drops before copying it out of the engine, warning with the cap. Built by the test
// with node mcpwasm/build.mjs testdata/argcap.js OUT.wasm (in guests/typescript).
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";

const server = new McpServer({ name: "argcap", version: "1.0.0" });
server.registerTool("biglog", { description: "logs 1 MiB, then a small line" }, async () => {
  console.log("x".repeat(1 << 20));
  console.log("small");
  return { content: [{ type: "text", text: "logged" }] };
});

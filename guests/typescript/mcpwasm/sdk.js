// mcpwasm's stand-in for the MCP TypeScript SDK's server modules
// (@modelcontextprotocol/sdk/server/mcp.js, …/server/stdio.js, …/server/completable.js,
// …/types.js): the build
// (build.mjs) points those imports here. The classes live in the shim (shim.js), which runs
// before the bundle; this module hands it zod, so zod shapes become JSON Schema
// (z.toJSONSchema) and arguments are parsed as the SDK parses them.
import { object, toJSONSchema } from "zod";

const mcp = globalThis.__mcpwasm;
if (!mcp || !mcp.sdk) {
  throw new Error("mcpwasm: the shim did not run first (build the guest with mcpwasm/build.mjs)");
}
mcp.setZod({ object, toJSONSchema });

export const { McpServer, ResourceTemplate, Server, StdioServerTransport, McpError, ErrorCode, completable } = mcp.sdk;
export const LATEST_PROTOCOL_VERSION = "2025-11-25";

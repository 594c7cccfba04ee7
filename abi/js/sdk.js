// mcpwasm's stand-in for the MCP TypeScript SDK's server modules
// (@modelcontextprotocol/sdk/server/mcp.js, …/server/index.js, …/server/stdio.js,
// …/server/completable.js, …/types.js): the build (build.mjs) points those imports here. The
// classes live in the shim (shim.js), which runs before the bundle; this module hands it zod,
// so zod shapes become JSON Schema (z.toJSONSchema) and arguments are parsed as the SDK parses
// them (zod 3 shapes through zod3.js).
import { object, toJSONSchema } from "zod";
import { isZod3, object3, toJSONSchema3 } from "./zod3.js";

const mcp = globalThis.__mcpwasm;
if (!mcp || !mcp.sdk) {
  throw new Error("mcpwasm: the shim did not run first (build the guest with mcpwasm/build.mjs)");
}
mcp.setZod({ object, toJSONSchema }, { isZod3, object3, toJSONSchema3 });

export const { McpServer, ResourceTemplate, Server, StdioServerTransport, McpError, ErrorCode, completable } = mcp.sdk;
export const LATEST_PROTOCOL_VERSION = "2025-11-25";
export const DEFAULT_NEGOTIATED_PROTOCOL_VERSION = "2025-03-26";
export const SUPPORTED_PROTOCOL_VERSIONS = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05", "2024-10-07"];
export const JSONRPC_VERSION = "2.0";

// The request and notification schemas of …/types.js, as setRequestHandler and
// setNotificationHandler read them: shape.method.value is the method. parse and safeParse
// pass the value through (the host has checked the request against the MCP schema).
const schema = (method) => {
  const s = {
    method,
    shape: { method: { value: method } },
    parse: (v) => v,
    safeParse: (v) => ({ success: true, data: v }),
    safeParseAsync: async (v) => ({ success: true, data: v }),
  };
  return s;
};
export const CallToolRequestSchema = schema("tools/call");
export const ListToolsRequestSchema = schema("tools/list");
export const ListResourcesRequestSchema = schema("resources/list");
export const ListResourceTemplatesRequestSchema = schema("resources/templates/list");
export const ReadResourceRequestSchema = schema("resources/read");
export const SubscribeRequestSchema = schema("resources/subscribe");
export const UnsubscribeRequestSchema = schema("resources/unsubscribe");
export const ListPromptsRequestSchema = schema("prompts/list");
export const GetPromptRequestSchema = schema("prompts/get");
export const CompleteRequestSchema = schema("completion/complete");
export const SetLevelRequestSchema = schema("logging/setLevel");
export const PingRequestSchema = schema("ping");
export const InitializeRequestSchema = schema("initialize");
export const CreateMessageRequestSchema = schema("sampling/createMessage");
export const ElicitRequestSchema = schema("elicitation/create");
export const ListRootsRequestSchema = schema("roots/list");
export const GetTaskRequestSchema = schema("tasks/get");
export const GetTaskPayloadRequestSchema = schema("tasks/result");
export const ListTasksRequestSchema = schema("tasks/list");
export const CancelTaskRequestSchema = schema("tasks/cancel");
export const CancelledNotificationSchema = schema("notifications/cancelled");
export const InitializedNotificationSchema = schema("notifications/initialized");
export const ProgressNotificationSchema = schema("notifications/progress");
export const LoggingMessageNotificationSchema = schema("notifications/message");
export const RootsListChangedNotificationSchema = schema("notifications/roots/list_changed");
export const ResourceListChangedNotificationSchema = schema("notifications/resources/list_changed");
export const ResourceUpdatedNotificationSchema = schema("notifications/resources/updated");
export const ToolListChangedNotificationSchema = schema("notifications/tools/list_changed");
export const PromptListChangedNotificationSchema = schema("notifications/prompts/list_changed");
export const ElicitationCompleteNotificationSchema = schema("notifications/elicitation/complete");
export const TaskStatusNotificationSchema = schema("notifications/tasks/status");
// Result and value schemas a server may import to check what it builds: pass-through.
const any = () => ({ parse: (v) => v, safeParse: (v) => ({ success: true, data: v }), safeParseAsync: async (v) => ({ success: true, data: v }) });
export const CallToolResultSchema = any();
export const CompatibilityCallToolResultSchema = any();
export const ListToolsResultSchema = any();
export const ListResourcesResultSchema = any();
export const ListResourceTemplatesResultSchema = any();
export const ReadResourceResultSchema = any();
export const ListPromptsResultSchema = any();
export const GetPromptResultSchema = any();
export const CompleteResultSchema = any();
export const EmptyResultSchema = any();
export const ToolSchema = any();
export const ResourceSchema = any();
export const PromptSchema = any();
export const CreateMessageResultSchema = any();
export const ElicitResultSchema = any();
export const ListRootsResultSchema = any();
export const LoggingLevelSchema = any();
export const TextContentSchema = any();
export const ImageContentSchema = any();
export const EmbeddedResourceSchema = any();
export const isInitializeRequest = (v) => !!v && v.method === "initialize";

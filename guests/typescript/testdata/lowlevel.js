// A test guest for mcpwasm's JavaScript kind (guests/typescript_test.go): the SDK's low-level
// Server API as published servers use it (SDK 1.0.1 on): setRequestHandler with the request
// schemas of @modelcontextprotocol/sdk/types.js for tools, resources, templates, prompts and
// completion. Built with node mcpwasm/build.mjs testdata/lowlevel.js OUT.wasm.
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import {
  CallToolRequestSchema,
  CompleteRequestSchema,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ErrorCode,
  ReadResourceRequestSchema,
  SetLevelRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";

const server = new Server({ name: "lowlevel", version: "0.1.0" }, { capabilities: { tools: {}, resources: { subscribe: true }, prompts: {}, completions: {}, logging: {} } });

// Two pages of tools: the host follows nextCursor.
server.setRequestHandler(ListToolsRequestSchema, async (req) =>
  req.params.cursor === "2"
    ? { tools: [{ name: "count", description: "Counts characters", inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] } }] }
    : { tools: [{ name: "shout", description: "Upper-cases text", inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] } }], nextCursor: "2" },
);
server.setRequestHandler(CallToolRequestSchema, async (req) => {
  const text = String(req.params.arguments?.text ?? "");
  switch (req.params.name) {
    case "shout":
      return { content: [{ type: "text", text: text.toUpperCase() }] };
    case "count":
      return { content: [{ type: "text", text: String(text.length) }] };
  }
  throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${req.params.name}`);
});
server.setRequestHandler(ListResourcesRequestSchema, async () => ({ resources: [{ uri: "memo://one", name: "one", mimeType: "text/plain" }] }));
server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => ({ resourceTemplates: [{ uriTemplate: "memo://{id}", name: "memo" }] }));
server.setRequestHandler(ReadResourceRequestSchema, async (req) => ({ contents: [{ uri: req.params.uri, text: "memo " + req.params.uri.slice("memo://".length) }] }));
server.setRequestHandler(ListPromptsRequestSchema, async () => ({ prompts: [{ name: "greet", description: "Greets", arguments: [{ name: "who", required: true }] }] }));
server.setRequestHandler(GetPromptRequestSchema, async (req) => ({
  messages: [{ role: "user", content: { type: "text", text: "Say hello to " + req.params.arguments?.who } }],
}));
server.setRequestHandler(CompleteRequestSchema, async (req) => ({
  completion: { values: ["ada", "alan"].filter((v) => v.startsWith(req.params.argument.value)), hasMore: false },
}));
// The host serves these itself: the handlers are accepted, as the SDK accepts them.
server.setRequestHandler(SubscribeRequestSchema, async () => ({}));
server.setRequestHandler(UnsubscribeRequestSchema, async () => ({}));
server.setRequestHandler(SetLevelRequestSchema, async () => ({}));

await server.connect(new StdioServerTransport());

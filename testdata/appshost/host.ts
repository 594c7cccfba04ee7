// A small MCP Apps host page for TestAppsBrowser (cmd/mcpwasm): @modelcontextprotocol/ext-apps'
// AppBridge renders a tool's view in a sandboxed iframe, the MCP client talks to `mcpwasm
// serve --http` (through the test's same-origin /mcp), and the view's tools/call goes
// through the bridge to the server. Query: ?tool=NAME&args=JSON&sandbox=URL (the sandbox
// proxy, on another origin). #status says where it got to.
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { AppBridge, PostMessageTransport, getToolUiResourceUri } from "@modelcontextprotocol/ext-apps/app-bridge";

const status = (s: string) => {
  document.getElementById("status")!.textContent = s;
};

async function main() {
  const q = new URLSearchParams(location.search);
  const toolName = q.get("tool")!;
  const args = JSON.parse(q.get("args") || "{}");
  const info = { name: "mcpwasm-test-host", version: "1.0.0" };
  // A host that renders views declares the extension (the server gives _meta.ui only then).
  const client = new Client(info, {
    capabilities: { extensions: { "io.modelcontextprotocol/ui": { mimeTypes: ["text/html;profile=mcp-app"] } } } as any,
  });
  await client.connect(new StreamableHTTPClientTransport(new URL("/mcp", location.href)));
  const { tools } = await client.listTools();
  const tool = tools.find((t) => t.name === toolName);
  const uri = tool && getToolUiResourceUri(tool);
  if (!uri) throw new Error(`tool ${toolName} names no view: ${JSON.stringify(tool)}`);
  const result = client.callTool({ name: toolName, arguments: args });
  const read = await client.readResource({ uri });
  const content: any = read.contents[0];
  if (content.mimeType !== "text/html;profile=mcp-app") throw new Error(`view type ${content.mimeType}`);

  const iframe = document.createElement("iframe");
  iframe.id = "view";
  iframe.setAttribute("sandbox", "allow-scripts allow-same-origin allow-forms");
  iframe.style.cssText = "width:600px;height:300px;border:1px solid #888";
  const ready = new Promise<void>((resolve) => {
    const on = (e: MessageEvent) => {
      if (e.source === iframe.contentWindow && e.data?.method === "ui/notifications/sandbox-proxy-ready") {
        window.removeEventListener("message", on);
        resolve();
      }
    };
    window.addEventListener("message", on);
  });
  iframe.src = q.get("sandbox")!;
  document.body.appendChild(iframe);
  await ready;

  const bridge = new AppBridge(client, info, { serverTools: {}, serverResources: {} });
  const initialized = new Promise<void>((resolve) => {
    bridge.oninitialized = () => resolve();
  });
  await bridge.connect(new PostMessageTransport(iframe.contentWindow!, iframe.contentWindow!));
  await bridge.sendSandboxResourceReady({ html: content.text, csp: content._meta?.ui?.csp });
  await initialized;
  bridge.sendToolInput({ arguments: args });
  bridge.sendToolResult((await result) as any);
  status("rendered");
}

main().catch((e) => status("error: " + (e && e.stack ? e.stack : e)));

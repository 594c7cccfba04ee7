// mcpwasm code mode: the fixed runner. The host prepends the requests line and the capture
// of the host function (const __cmHost), then the shim; this file follows. It registers one
// tool, "run", whose arguments the host builds: {code, api}. code is the model's program,
// already stripped of types and wrapped by the host as `(async (tools) => {…\n})`; api maps
// each server to its tools' served names. Every tool call is one mcp.call request to the
// host's code-mode upstream, which enforces the allowlist, confirmation and budget in Go:
// nothing here is a security check, since the model's code shares this realm.
const __cmServer = new globalThis.__mcpwasm.sdk.McpServer({ name: "codemode", version: "1.0.0" });
const __cmLogCap = 64 << 10;
__cmServer.registerTool("run", { inputSchema: { type: "object" } }, async (args) => {
  const logs = [];
  let logBytes = 0;
  const line = (xs) =>
    xs
      .map((x) => {
        if (typeof x === "string") return x;
        try {
          const s = JSON.stringify(x);
          return s === undefined ? String(x) : s;
        } catch (_) {
          return String(x);
        }
      })
      .join(" ");
  const log = (...xs) => {
    const s = line(xs);
    logBytes += s.length;
    if (logBytes <= __cmLogCap) logs.push(s);
  };
  globalThis.console = Object.freeze({ log, info: log, warn: log, error: log, debug: log });
  const call = (name, a) => {
    const body = { server: args.upstream, tool: name, arguments: a === undefined ? {} : a };
    const r = JSON.parse(__cmHost("request", JSON.stringify({ kind: "mcp.call", body })));
    if (r.status !== 0) throw new Error((r.body && r.body.error) || "tool " + name + ": request failed with status " + r.status);
    const res = r.body || {};
    const text = (res.content || []).filter((c) => c && c.type === "text").map((c) => c.text).join("\n");
    if (res.isError) throw new Error("tool " + name + ": " + (text || "failed"));
    if (res.structuredContent !== undefined) return res.structuredContent;
    return text;
  };
  const tools = Object.create(null);
  for (const group of Object.keys(args.api)) {
    const g = Object.create(null);
    for (const method of Object.keys(args.api[group])) {
      const name = args.api[group][method];
      g[method] = Object.freeze(async (a) => call(name, a));
    }
    tools[group] = Object.freeze(g);
  }
  Object.freeze(tools);
  let result;
  try {
    const fn = (0, eval)(args.code);
    const value = await fn(tools);
    result = value === undefined ? null : JSON.parse(JSON.stringify(value));
  } catch (e) {
    const head = e instanceof Error ? e.name + ": " + e.message : "thrown: " + line([e]);
    return { isError: true, content: [{ type: "text", text: head + "\n" + ((e && e.stack) || "") }] };
  }
  return { content: [{ type: "text", text: JSON.stringify(result) }], structuredContent: { result, logs } };
});
await __cmServer.connect(new globalThis.__mcpwasm.sdk.StdioServerTransport());

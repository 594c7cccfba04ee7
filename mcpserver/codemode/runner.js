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
  // A tool result becomes the value the program sees: its structuredContent, else its text;
  // a tool error throws. Nothing is ever evaluated.
  // The host sends each answer as {v: structuredContent}, {t: text} or {error}.
  const settle = (r, resolve, reject) => {
    if (r.error !== undefined) return reject(new Error(r.error));
    resolve(r.v !== undefined ? r.v : r.t);
  };
  // Calls made in the same turn (Promise.all over a map) go out as one batch, which the host
  // runs concurrently: one mcp.call request to the code-mode upstream's tool BATCH_TOOL.
  let queue = null;
  const flush = () => {
    const q = queue;
    queue = null;
    const body = { server: args.upstream, tool: args.batch, arguments: { calls: q.map((c) => ({ tool: c.name, arguments: c.a })) } };
    let r;
    try {
      r = JSON.parse(__cmHost("request", JSON.stringify({ kind: "mcp.call", body })));
    } catch (e) {
      for (const c of q) c.reject(e);
      return;
    }
    if (r.status !== 0) {
      const e = new Error((r.body && r.body.error) || "tool call failed with status " + r.status);
      for (const c of q) c.reject(e);
      return;
    }
    const results = (r.body && r.body.structuredContent && r.body.structuredContent.results) || [];
    q.forEach((c, i) => settle(results[i] || { error: "no answer" }, c.resolve, c.reject));
  };
  const call = (name, a) =>
    new Promise((resolve, reject) => {
      if (queue === null) {
        queue = [];
        Promise.resolve().then(flush);
      }
      const site = new Error(); // the program's line, for the error of this call
      const fail = (e) => {
        const err = e instanceof Error ? e : new Error(String(e));
        try {
          err.stack = site.stack;
        } catch (_) {}
        reject(err);
      };
      queue.push({ name, a: a === undefined ? {} : a, resolve, reject: fail });
    });
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

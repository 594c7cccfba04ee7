// Builds one mcpwasm guest from an MCP server script written for the TypeScript SDK, or from
// a published npm package's server:
//
//   node mcpwasm/build.mjs SERVER.ts NAME.wasm [--strict] [--package DIR] [--embed-max BYTES]
//
// (`mcpwasm build` runs it.) SERVER is the entry; the project is the working directory (its
// package.json, its node_modules), or with --package the package directory DIR (an installed
// npm package: the entry is its "bin" script).
// 1. esbuild bundles the script and its npm dependencies (zod, …) into one ES module, with
//    the SDK's server imports (@modelcontextprotocol/sdk/server/mcp.js, …/server/index.js,
//    …/server/stdio.js, …/types.js) pointed at mcpwasm/sdk.js, and Node's built-ins that
//    have a sandbox meaning (path, url, util, events, stream, fs, os, crypto, module,
//    process, tty, string_decoder, buffer, timers) at mcpwasm/node/*.js, which go through
//    the operator's grants like everything else. A built-in without one (http, net,
//    child_process, zlib, …) becomes a stub that throws on use, naming the module and why;
//    the build lists each stub it linked as a warning (--strict: an error). Another SDK module
//    (a transport of its own, the client) fails the build saying which path it needs.
// 2. The engine, quickjs-wasi's quickjs.wasm, is checked against the sha256 pinned below.
// 3. NAME.wasm = the engine + a custom section "mcpwasm.js" holding mcpwasm/shim.js and the
//    bundle, + a custom section "mcpwasm.jsbc" holding the same script compiled to QuickJS
//    bytecode by the same engine (the host loads it ~5× faster than it parses the source): one
//    file, one digest, served by `mcpwasm serve NAME.wasm`.
// With --package, the files the package reads relative to itself (import.meta.url,
// __dirname: its package.json, templates) are embedded read-only under /.mcpwasm/pkg (the
// package directory without node_modules, source maps and TypeScript sources; at most
// --embed-max bytes, 1 MiB by default): the guest reads them without a grant.
//
// What the guest asks for (abi/ABI.md §4; the operator's grants decide) is package.json's
// "mcpwasm": {"requests": {…}} if it has one; else it is read off the project's own files
// (not its packages): fetch → net "*:*" (any host and port the operator grants),
// process.env.NAME → env NAME, setTimeout, setInterval, Date.now(), new Date() or
// performance.now() → clock, crypto.getRandomValues, randomUUID or Math.random → random,
// createMessage → sampling, elicitInput → elicitation, listRoots → roots, an import of
// node:fs/promises → fs: the directories its absolute path literals name, writable if it calls
// writeFile, appendFile or mkdir (a package that names none: "/", the directories are the
// operator's to grant). A file written for Node thus needs nothing added.
import { build } from "esbuild";
import { CompileFlags, EvalFlags, QuickJS } from "quickjs-wasi";
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, realpathSync, statSync, writeFileSync } from "node:fs";
import { builtinModules, createRequire } from "node:module";
import { dirname, extname, join, relative, resolve as resolvePath, sep } from "node:path";
import { fileURLToPath } from "node:url";

const ENGINE = "quickjs-wasi/quickjs.wasm";
const ENGINE_VERSION = "3.7.0";
const ENGINE_SHA256 = "c0bd8f296e18cf074969f6401b9ecb72609a1323818ec2b9bf7a8f8d740d1363";
const SECTION = "mcpwasm.js";
const BYTECODE_SECTION = "mcpwasm.jsbc";

const here = dirname(fileURLToPath(import.meta.url));
const positional = [];
let strict = false;
let pkgDir = null;
let embedMax = 1 << 20;
let serverMode = false; // --server: a whole server that carries its own MCP SDK (quickjs process.go)
{
  const argv = process.argv.slice(2);
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--strict") strict = true;
    // Real path: esbuild names bundled files by theirs, so a package reached through a
    // symbolic link (pnpm's layout, a linked node_modules) is still recognised as own.
    else if (a === "--package") pkgDir = realpathSync(resolvePath(argv[++i] || "."));
    else if (a === "--embed-max") embedMax = Number(argv[++i]);
    else if (a === "--server") serverMode = true;
    else positional.push(a);
  }
}
const [entry, out] = positional;
if (!entry || !out || !(embedMax >= 0)) {
  console.error("usage: node mcpwasm/build.mjs SERVER.ts OUT.wasm [--strict] [--package DIR] [--embed-max BYTES]");
  process.exit(2);
}
const projectDir = pkgDir || process.cwd();
// own says whether a bundled file is the project's (or the package's) own, not a dependency's.
const own = (file) => {
  const f = resolvePath(file);
  if (pkgDir) return f.startsWith(pkgDir + sep) && !f.slice(pkgDir.length).includes(sep + "node_modules" + sep);
  return !f.includes(sep + "node_modules" + sep) && !f.startsWith(here + sep);
};
const FILES_ROOT = "/.mcpwasm/pkg"; // where --package's own files are embedded (shim.js reads it)

const sdkStub = join(here, "sdk.js");
const sdkModules = new Set(["server/mcp", "server/stdio", "server/completable", "types", "server/index", "server", "shared/protocol"]);
const builtins = new Set(builtinModules.flatMap((m) => [m, "node:" + m]));
// Node built-ins served by mcpwasm/node/NAME.js ("/" in a name is "_").
const nodeModules = new Set(["path", "path/posix", "url", "util", "events", "stream", "stream/promises", "fs", "fs/promises", "os", "crypto", "module", "process", "tty", "string_decoder", "buffer"]);
const nodeFile = (name) => join(here, "node", (name === "path/posix" ? "path" : name.replace("/", "_")) + ".js");
// Why a built-in without a sandbox meaning is a stub (what the stub's error and the build's
// warning say).
const stubWhy = (name) => {
  const base = name.split("/")[0];
  if (["http", "https", "http2", "net", "tls", "dgram", "dns", "inspector"].includes(base)) return "a guest opens no sockets and serves no HTTP itself: the host is the transport; use fetch (over the net grant)";
  if (["child_process", "cluster", "worker_threads"].includes(base)) return "a guest runs no processes or threads";
  if (base === "zlib") return "there is no compression built in: bundle a JavaScript implementation (fflate, pako)";
  if (base === "async_hooks") return "the engine tracks no async context";
  if (["vm", "v8", "repl", "readline", "perf_hooks", "trace_events", "wasi", "sqlite", "test"].includes(base)) return "it has no meaning inside the sandbox";
  return "it has no meaning inside the sandbox";
};
const stubs = new Map(); // module → first importer
const stubSource = (name) => `const why = ${JSON.stringify(stubWhy(name))};
const fail = (what) => { throw new Error("node:${name}" + (what ? "." + what : "") + " is not available in the mcpwasm sandbox: " + why); };
const member = (k) => new Proxy(function () {}, { apply: () => fail(k), construct: () => fail(k), get: (_, kk) => (typeof kk === "symbol" || kk === "then" ? undefined : fail(k + "." + String(kk))) });
const proto = new Proxy({}, { get: (_, k) => (typeof k === "symbol" || k === "then" || k === "__esModule" ? undefined : member(String(k))) });
module.exports = new Proxy({}, { get: (_, k) => (k === "__esModule" || typeof k === "symbol" || k === "then" ? undefined : k === "default" ? module.exports : member(String(k))), getPrototypeOf: () => proto });
`;

// node:fs and node:fs/promises (mcpwasm/node/fs.js) go over the fs grant (request kind "fs");
// an import of them by the project's own files asks for fs (see inferRequests).
let importsFS = false;
let fsFromArgs = ""; // a package's fs requests are its args' directories: "ro" or "rw"
const namedHosts = new Set(); // hosts named by URL literals of the project's own files

// Node built-ins the shim serves as globals, by import: node:timers the global timers; node:timers/promises their promise forms (setTimeout(ms,
// value, {signal}), setImmediate(value, {signal}), scheduler.wait). Each also without "node:".
const shimModules = {
  timers: `export const { setTimeout, clearTimeout, setInterval, clearInterval, setImmediate, clearImmediate } = globalThis;\nexport default { setTimeout, clearTimeout, setInterval, clearInterval, setImmediate, clearImmediate };\n`,
  "timers/promises": `const g = globalThis;
const wait = (set, clear, ms, value, options) =>
  new Promise((resolve, reject) => {
    const signal = options && options.signal;
    if (signal && signal.aborted) return reject(signal.reason);
    const onAbort = () => {
      clear(id);
      reject(signal.reason);
    };
    const id = set(() => {
      if (signal) signal.removeEventListener("abort", onAbort);
      resolve(value);
    }, ms);
    if (signal) signal.addEventListener("abort", onAbort, { once: true });
  });
export const setTimeout = (ms, value, options) => wait(g.setTimeout, g.clearTimeout, ms, value, options);
export const setImmediate = (value, options) => wait((fn) => g.setImmediate(fn), g.clearImmediate, 0, value, options);
export const scheduler = { wait: (ms, options) => setTimeout(ms, undefined, options), yield: () => setImmediate() };
export default { setTimeout, setImmediate, scheduler };
`,
};
let importsTimers = false;
// A whole server's node:module: createRequire also serves Node's built-ins (a bundle that
// carries its own SDK, made by bun or esbuild for Node, requires them at run time): the
// sandbox's ones from node/*.js, and the rest as stubs that throw when used.
const serverModule = () => {
  const names = [...nodeModules].filter((n) => n !== "module");
  const imports = names.map((n, i) => `import * as m${i} from ${JSON.stringify(nodeFile(n))};`).join("\n");
  const table = names.map((n, i) => `[${JSON.stringify(n)}, m${i}]`).join(", ");
  return `${imports}
import { createRequire as jsonRequire } from ${JSON.stringify(nodeFile("module"))};
import timers from "timers";
const table = new Map([${table}, ["timers", { default: timers }], ["sys", m${names.indexOf("util")}]]);
const cjs = (ns) => {
  const d = ns.default;
  if (d && (typeof d === "object" || typeof d === "function")) {
    for (const k of Object.keys(ns)) if (k !== "default" && !(k in d)) try { d[k] = ns[k]; } catch (_) {}
    return d;
  }
  return Object.assign({}, ns);
};
const data = { http: { METHODS: ["ACL", "BIND", "CHECKOUT", "CONNECT", "COPY", "DELETE", "GET", "HEAD", "LINK", "LOCK", "M-SEARCH", "MERGE", "MKACTIVITY", "MKCALENDAR", "MKCOL", "MOVE", "NOTIFY", "OPTIONS", "PATCH", "POST", "PROPFIND", "PROPPATCH", "PURGE", "PUT", "QUERY", "REBIND", "REPORT", "SEARCH", "SOURCE", "SUBSCRIBE", "TRACE", "UNBIND", "UNLINK", "UNLOCK", "UNSUBSCRIBE"], STATUS_CODES: { 200: "OK", 400: "Bad Request", 404: "Not Found", 500: "Internal Server Error" } } };
const stub = (name) => {
  const known = data[name] || {};
  const fail = (what) => { throw new Error("node:" + name + (what ? "." + what : "") + " is not available in the mcpwasm sandbox"); };
  const member = (k) => new Proxy(function () {}, { apply: () => fail(k), construct: () => fail(k), get: (t, kk) => (kk === "prototype" ? t.prototype : typeof kk === "symbol" || kk === "then" ? undefined : fail(k + "." + String(kk))) });
  return new Proxy({}, { get: (_, k) => (typeof k === "symbol" || k === "then" || k === "__esModule" ? undefined : k in known ? known[k] : member(String(k))) });
};
const builtin = new Set(${JSON.stringify(builtinModules)});
const cache = new Map();
export function createRequire(from) {
  const json = jsonRequire(from);
  const req = (id) => {
    const name = String(id).replace(/^node:/, "");
    if (cache.has(name)) return cache.get(name);
    let m;
    if (table.has(name)) m = cjs(table.get(name));
    else if (builtin.has(name) || String(id).startsWith("node:")) m = stub(name);
    else return json(id);
    cache.set(name, m);
    return m;
  };
  req.resolve = json.resolve;
  req.cache = {};
  return req;
}
export const builtinModules = [...builtin];
export const isBuiltin = (id) => builtin.has(String(id).replace(/^node:/, ""));
export default { createRequire, builtinModules, isBuiltin };
`;
};

// fromProject marks build.mjs's own resolution of a package from the project (guard).
const fromProject = Symbol("fromProject");
// majorOf is the major version of the package in dir, or null.
const majorOf = (dir) => {
  try {
    return String(JSON.parse(readFileSync(join(dir, "package.json"), "utf8")).version).split(".")[0];
  } catch {
    return null;
  }
};

const guard = {
  name: "mcpwasm",
  setup(b) {
    b.onResolve({ filter: /^(node:)?fs(\/promises)?$/ }, (a) => {
      if (own(a.importer)) importsFS = true; // the project's own files ask
      return { path: nodeFile(a.path.replace(/^node:/, "")) };
    });
    b.onResolve({ filter: /^(node:)?(timers|timers\/promises)$/ }, (a) => {
      const name = a.path.replace(/^node:/, "");
      if (name.startsWith("timers") && own(a.importer)) importsTimers = true; // timers wait with the clock
      return { path: name, namespace: "mcpwasm-node" };
    });
    if (serverMode) b.onResolve({ filter: /^(node:)?module$/ }, () => ({ path: "module", namespace: "mcpwasm-node", pluginData: { resolveDir: here } }));
    b.onLoad({ filter: /.*/, namespace: "mcpwasm-node" }, (a) => (a.path === "module" ? { contents: serverModule(), loader: "js", resolveDir: here } : { contents: shimModules[a.path], loader: "js" }));
    // MCP Apps' server helpers: @modelcontextprotocol/ext-apps/server is the shim's (shim.js,
    // mcp.apps); the rest of ext-apps is the view's side, which runs in the host's browser.
    if (!serverMode) b.onResolve({ filter: /^@modelcontextprotocol\/ext-apps\/server(\.js)?$/ }, () => ({ path: "ext-apps/server", namespace: "mcpwasm-apps" }));
    b.onLoad({ filter: /.*/, namespace: "mcpwasm-apps" }, () => ({
      contents: `const a = globalThis.__mcpwasm.apps;\nexport const { registerAppTool, registerAppResource, getUiCapability, RESOURCE_MIME_TYPE, RESOURCE_URI_META_KEY, EXTENSION_ID } = a;\n`,
      loader: "js",
    }));
    if (!serverMode) b.onResolve({ filter: /^@modelcontextprotocol\/sdk(\/|$)/ }, (a) => {
      const sub = a.path.replace(/^@modelcontextprotocol\/sdk\/?/, "").replace(/\.js$/, "");
      if (sdkModules.has(sub)) return { path: sdkStub };
      const serverTransport = /^server\/(sse|streamableHttp|express|websocket|auth)/.test(sub);
      const transport = !serverTransport && sub.startsWith("client");
      return {
        errors: [
          {
            text:
              `unsupported import "${a.path}" in ${relative(process.cwd(), a.importer)}: mcpwasm's shim serves the SDK's server API (server/mcp.js, server/index.js, server/stdio.js, server/completable.js, types.js) and the host is the transport (stdio and Streamable HTTP are mcpwasm serve's)` +
              (serverTransport ? "; connect the server with StdioServerTransport (server/stdio.js) instead: `mcpwasm serve` serves it over stdio, and `mcpwasm serve --http ADDR` over Streamable HTTP" : "") +
              (transport ? "; a server that runs an MCP client needs the whole-server path (the package run as a whole WASI program), not the shim" : ""),
          },
        ],
      };
    });
    b.onResolve({ filter: /^[^./]/ }, (a) => {
      if (!builtins.has(a.path) && !a.path.startsWith("node:")) return undefined;
      const name = a.path.replace(/^node:/, "");
      if (nodeModules.has(name)) return { path: nodeFile(name) };
      if (name === "sys") return { path: nodeFile("util") };
      if (!stubs.has(name)) stubs.set(name, relative(process.cwd(), a.importer));
      return { path: name, namespace: "mcpwasm-stub" };
    });
    b.onLoad({ filter: /.*/, namespace: "mcpwasm-stub" }, (a) => ({ contents: stubSource(a.path), loader: "js" }));
    // The build's own modules (sdk.js's zod) take the project's copy of a package when it
    // has the build's major version: the server's schemas and the SDK then share one copy
    // (bundled once, one set of classes). Another major keeps the build's (sdk.js reads zod 3
    // schemas through zod3.js).
    b.onResolve({ filter: /^[^./]/ }, async (a) => {
      if (a.pluginData === fromProject || !resolvePath(a.importer).startsWith(here + sep) || builtins.has(a.path)) return undefined;
      const name = a.path.split("/").slice(0, a.path.startsWith("@") ? 2 : 1).join("/");
      const r = await b.resolve(a.path, { kind: a.kind, resolveDir: dirname(resolvePath(entry)), pluginData: fromProject });
      const inPkg = sep + "node_modules" + sep + name.split("/").join(sep) + sep;
      const at = r.errors.length === 0 && r.path ? r.path.lastIndexOf(inPkg) : -1;
      if (at < 0) return undefined;
      const mine = majorOf(join(here, "..", "node_modules", name));
      if (mine === null || majorOf(r.path.slice(0, at + inPkg.length)) !== mine) return undefined;
      return { path: r.path, sideEffects: r.sideEffects };
    });
    // The package's own files see where they are: import.meta.url (and __dirname, __filename
    // in a file that does not declare them) name their place under FILES_ROOT.
    if (pkgDir) {
      b.onLoad({ filter: /\.(m|c)?(j|t)sx?$/ }, (a) => {
        if (!own(a.path)) return undefined;
        const rel = relative(pkgDir, a.path).split(sep).join("/");
        const file = FILES_ROOT + "/" + rel;
        let src = readFileSync(a.path, "utf8");
        src = src.replace(/\bimport\.meta\.url\b/g, JSON.stringify("file://" + file));
        src = src.replace(/\bimport\.meta\.dirname\b/g, JSON.stringify(dirname(file))).replace(/\bimport\.meta\.filename\b/g, JSON.stringify(file));
        if (!/(const|let|var|function)\s+__dirname\b/.test(src)) src = src.replace(/\b__dirname\b/g, JSON.stringify(dirname(file)));
        if (!/(const|let|var|function)\s+__filename\b/.test(src)) src = src.replace(/\b__filename\b/g, JSON.stringify(file));
        const ext = extname(a.path).replace(/^\.(m|c)?/, "");
        return { contents: src, loader: ext, resolveDir: dirname(a.path) };
      });
    }
  },
};

const bundle = () => build({
  entryPoints: [entry],
  bundle: true,
  format: "esm",
  platform: "neutral",
  mainFields: ["module", "main"],
  // The project's packages, wherever the entry is; then the build's own (zod for sdk.js).
  nodePaths: [join(projectDir, "node_modules"), join(here, "..", "node_modules")],
  // "browser": a package's browser build is the one for this runtime — fetch, crypto's
  // getRandomValues, TextEncoder, URL, AbortController, no Node built-ins — as nanoid's is
  // (its default build imports node:crypto). "node" is never a condition here.
  conditions: serverMode ? ["node", "import", "default"] : ["browser", "import", "default"],
  target: "es2023",
  minify: true,
  charset: "utf8",
  legalComments: "none",
  write: false,
  metafile: true,
  logLevel: "silent",
  plugins: [guard],
});
const failBuild = (e) => {
  for (const m of e.errors || []) {
    const where = m.location ? `${m.location.file}:${m.location.line}: ` : "";
    console.error(`${where}${explain(m.text)}`);
  }
  if (!e.errors) console.error(String(e));
  process.exit(1);
};
// wholeServer says why the project is a whole server the shim cannot host (its own SDK's
// stdio transport, TS SDK v2, timers that notify between calls), or "".
const wholeServer = (meta) => {
  const inputs = Object.keys(meta ? meta.inputs : {});
  if (inputs.some((f) => /node_modules[\/\\]@modelcontextprotocol[\/\\]server[\/\\]/.test(f))) return "it uses the MCP TypeScript SDK v2 (@modelcontextprotocol/server) and its stdio transport";
  const ownSrc = inputs
    .filter((f) => own(f) && existsSync(f))
    .map((f) => readFileSync(f, "utf8"))
    .join("\n");
  if (/class\s+StdioServerTransport\b|"notifications\/initialized"/.test(ownSrc)) return "it brings its own MCP SDK bundle (it defines StdioServerTransport or speaks JSON-RPC itself)";
  if (/\bsetInterval\s*\(/.test(ownSrc) && /\.(notification|sendResourceUpdated|sendLoggingMessage|sendToolListChanged)\s*\(/.test(ownSrc)) return "it sends notifications from timers between calls";
  return "";
};
let result;
if (serverMode) result = await bundle().catch(failBuild);
else {
  result = await bundle().catch((e) => ({ failed: e }));
  // An SDK part the shim does not serve makes it a whole server, unless all it lacks is a
  // server's own HTTP transport: that one is refused with advice (mcpwasm serve is the
  // transport), as a WASI process has no sockets either.
  const sdkParts = result.failed ? (result.failed.errors || []).map((m) => /^unsupported import "(@modelcontextprotocol\/sdk[^"]*)"/.exec(m.text)).filter(Boolean) : [];
  const sdkPart = sdkParts.find((m) => !/\/server\/(sse|streamableHttp|express|websocket|auth)/.test(m[1]));
  const why = result.failed
    ? /@modelcontextprotocol\/server\b/.test(readFileSync(entry, "utf8"))
      ? "it uses the MCP TypeScript SDK v2 (@modelcontextprotocol/server)"
      : sdkPart
        ? `it uses parts of the MCP SDK the shim does not serve (${sdkPart[1]})`
        : ""
    : wholeServer(result.metafile);
  if (why) {
    console.error(`${entry}: whole-server path: ${why}; it runs as a process with its own SDK (stdin and stdout carry MCP, timers run between calls)`);
    serverMode = true;
    importsFS = false;
    importsTimers = false;
    stubs.clear();
    result = await bundle().catch(failBuild);
  } else if (result.failed) failBuild(result.failed);
}

let enginePath;
try {
  enginePath = createRequire(join(here, "..", "package.json")).resolve(ENGINE);
} catch {
  console.error(`${ENGINE} is not installed: run npm ci (the lockfile pins quickjs-wasi ${ENGINE_VERSION})`);
  process.exit(1);
}
const engine = readFileSync(enginePath);
const sum = createHash("sha256").update(engine).digest("hex");
if (sum !== ENGINE_SHA256) {
  console.error(`${enginePath}: sha256 ${sum}, want ${ENGINE_SHA256} (quickjs-wasi ${ENGINE_VERSION})`);
  process.exit(1);
}

let pkg = {};
try {
  pkg = JSON.parse(readFileSync(join(projectDir, "package.json"), "utf8"));
} catch {}
const requests = (pkg.mcpwasm && pkg.mcpwasm.requests) || inferRequests(result.metafile);

// What the shim cannot serve: a bundle that carries an SDK of its own (a server published as
// one pre-bundled file) or timers that notify outside any call.
for (const [name, importer] of stubs) {
  console.error(`${strict ? "error" : "warning"}: node:${name} (imported by ${importer}) is a stub: ${stubWhy(name)}; using it throws`);
}
if (strict && stubs.size) process.exit(1);

// The package's own files (--package), embedded read-only under FILES_ROOT.
const files = {};
if (pkgDir) {
  let total = 0;
  const skipped = [];
  const walk = (dir) => {
    for (const d of readdirSync(dir, { withFileTypes: true }).sort((x, y) => (x.name < y.name ? -1 : 1))) {
      const p = join(dir, d.name);
      if (d.isDirectory()) {
        if (d.name !== "node_modules" && !d.name.startsWith(".")) walk(p);
        continue;
      }
      if (!d.isFile() || /\.(map|ts|tsx|mts|cts)$/.test(d.name)) continue;
      const size = statSync(p).size;
      const rel = relative(pkgDir, p).split(sep).join("/");
      if (total + size > embedMax) {
        skipped.push(rel);
        continue;
      }
      total += size;
      const b = readFileSync(p);
      const text = b.toString("utf8");
      files[FILES_ROOT + "/" + rel] = Buffer.from(text, "utf8").equals(b) ? { data: text } : { data_base64: b.toString("base64") };
    }
  };
  walk(pkgDir);
  if (skipped.length) console.error(`warning: ${skipped.length} of the package's files are not embedded (over the ${embedMax}-byte cap, --embed-max): ${skipped.slice(0, 5).join(", ")}${skipped.length > 5 ? ", …" : ""}`);
}

// explain turns esbuild's bare messages into what mcpwasm serves and why.
function explain(text) {
  const m = /^No matching export in "([^"]+)" for import "([^"]+)"/.exec(text);
  if (!m) return text;
  const [, file, name] = m;
  if (file.endsWith("sdk.js")) {
    return `unsupported import "${name}" from the MCP SDK: mcpwasm's shim serves McpServer (registerTool/Resource/Prompt, tool/resource/prompt), Server (setRequestHandler for every *RequestSchema of types.js), ResourceTemplate, StdioServerTransport, completable, McpError and ErrorCode; a server that needs more of the SDK needs the whole-server path`;
  }
  const node = /node[\/]([a-z_]+)\.js$/.exec(file);
  if (node) {
    const mod = node[1].replace("_", "/");
    return `unsupported import "${name}" from node:${mod}: mcpwasm's node:${mod} does not have it (docs/npm.md lists what each built-in offers; they go through the operator's grants)`;
  }
  return text;
}

// inferRequests reads what the project's own files use (see the top of this file).
function inferRequests(meta) {
  const r = {};
  const env = new Set();
  const dirs = new Set();
  let writes = false;
  for (const file of Object.keys(meta.inputs)) {
    if (!own(file) || file.startsWith("mcpwasm/") || file.includes("/mcpwasm/sdk.js") || file.startsWith("mcpwasm-")) continue;
    let src;
    try {
      src = readFileSync(file, "utf8");
    } catch {
      continue;
    }
    // "*:*" is any host on any port (abi/ABI.md's host patterns): "*" alone is any host on
    // the scheme's default port, which left a granted "127.0.0.1:8080" not requested. The
    // operator's grant decides what the guest reaches.
    if (/\bfetch\s*\(/.test(src)) {
      r.net = ["*:*"];
      // The hosts its URL literals name: what the printed config entry grants.
      for (const m of src.matchAll(/["'`]https?:\/\/([A-Za-z0-9.-]+\.[A-Za-z]{2,})(?::\d+)?[\/"'`?]/g)) namedHosts.add(m[1].toLowerCase());
    }
    for (const m of src.matchAll(/process\.env\.([A-Za-z_][A-Za-z0-9_]*)|process\.env\[\s*["'`]([^"'`]+)["'`]\s*\]/g)) env.add(m[1] || m[2]);
    // Timers wait for real only with the clock, and Date.now/performance.now read it.
    if (importsTimers || /\bset(Timeout|Interval)\s*\(|\bDate\.now\s*\(|\bnew\s+Date\s*\(\s*\)|\bperformance\.now\s*\(/.test(src)) r.clock = true;
    if (/crypto\.(getRandomValues|randomUUID)|Math\.random/.test(src)) r.random = true;
    if (/\.createMessage\s*\(|sampling\/createMessage/.test(src)) r.sampling = true;
    if (/\.elicitInput\s*\(|elicitation\/create/.test(src)) r.elicitation = true;
    if (/\.listRoots\s*\(|roots\/list/.test(src)) r.roots = true;
    if (importsFS) {
      // The directories its absolute path literals name ("/data/notes.txt" → "/data/notes.txt"'s
      // directory "/data"; "/data/" or "/data" → "/data"), writable if it writes.
      for (const m of src.matchAll(/["'`](\/[^"'`\s$]*)["'`$]/g)) {
        let p = m[1].replace(/\/+$/, "");
        if (/\.[A-Za-z0-9]+$/.test(p)) p = p.slice(0, p.lastIndexOf("/"));
        if (p !== "" && !p.includes("..")) dirs.add(p);
      }
      if (/\b(writeFile|appendFile|mkdir)\s*\(/.test(src)) writes = true;
    }
  }
  if (importsFS && pkgDir) {
    // A package's directories come from its arguments, not from the path literals of its
    // code: it requests each absolute path of the config's args (the shim reads them at
    // start, shim.js describe), writable if it writes; the operator's grants decide.
    dirs.clear();
    fsFromArgs = writes ? "rw" : "ro";
  } else if (importsFS && dirs.size === 0) {
    console.error(`${entry}: imports node:fs but names no absolute directory: add "mcpwasm": {"requests": {"fs": [{"path": "/data", "rw": true}]}} to package.json (the directories the operator may grant)`);
  }
  // Only the shallowest of nested directories: a grant is a whole directory.
  const fs = [...dirs].sort().filter((d, i, all) => !all.some((o) => o !== d && d.startsWith(o + "/")));
  if (fs.length) r.fs = fs.map((path) => (writes ? { path, rw: true } : { path }));
  if (env.size) r.env = [...env].sort();
  return Object.keys(r).length ? r : null;
}
// The prelude: the requests line first — the host reads it before the start
// (runtime/internal/kind/quickjs scriptRequests: `globalThis.__mcpwasm={requests:{…}};`, the
// whole first line) — then the rest. A package whose directories come from its arguments
// requests them as the fs path "$ARGS" (the host puts each absolute path of the config's
// args in its place; the shim does the same in its manifest).
const startRequests = fsFromArgs ? Object.assign({}, requests, { fs: ((requests && requests.fs) || []).concat([fsFromArgs === "rw" ? { path: "$ARGS", rw: true } : { path: "$ARGS" }]) }) : requests;
const rest = {};
if (fsFromArgs) rest.fsFromArgs = fsFromArgs;
if (serverMode) rest.process = true;
if (pkgDir) {
  rest.files = files;
  rest.filesRoot = FILES_ROOT;
  rest.script = FILES_ROOT + "/" + relative(pkgDir, resolvePath(entry)).split(sep).join("/");
}
const script =
  (startRequests ? `globalThis.__mcpwasm={requests:${JSON.stringify(startRequests)}};\n` : "") +
  (Object.keys(rest).length ? `globalThis.__mcpwasm=Object.assign(globalThis.__mcpwasm||{},${JSON.stringify(rest)});\n` : "") +
  readFileSync(join(here, "shim.js"), "utf8") +
  "\n" +
  result.outputFiles[0].text.replace(/^#![^\n]*\n/, ""); // a hashbang is valid only at the very start

// The bytecode: compiled as a module by the pinned engine itself (bytecode is specific to the
// engine's version, which the sha256 above fixes). A syntax error fails the build here.
let bytecode;
{
  const vm = await QuickJS.create({ wasm: engine });
  try {
    bytecode = Buffer.from(vm.compile(script, "guest.js", EvalFlags.TYPE_MODULE, CompileFlags.STRIP_SOURCE));
  } catch (e) {
    console.error(`${entry}: ${e.message}`);
    process.exit(1);
  } finally {
    vm.dispose();
  }
}

// A custom section: id 0, size (LEB128), name length (LEB128), name, payload.
const leb = (n) => {
  const b = [];
  do {
    let x = n & 0x7f;
    n >>>= 7;
    if (n) x |= 0x80;
    b.push(x);
  } while (n);
  return Buffer.from(b);
};
const section = (name, payload) => {
  const n = Buffer.from(name);
  const body = Buffer.concat([leb(n.length), n, payload]);
  return Buffer.concat([Buffer.from([0]), leb(body.length), body]);
};
const source = Buffer.from(script, "utf8");
const out_ = Buffer.concat([engine, section(SECTION, source), section(BYTECODE_SECTION, bytecode)].concat(serverMode ? [section("mcpwasm.jsserver", Buffer.from("1"))] : []));
writeFileSync(out, out_);
console.log(`${out}: ${out_.length} bytes (engine ${engine.length}, script ${source.length}, bytecode ${bytecode.length}); requests ${JSON.stringify(requests || {})}${fsFromArgs ? `, and fs${fsFromArgs === "rw" ? " (read-write)" : ""}: each absolute path of the config's args` : ""}`);
// For `mcpwasm build`: one JSON line it reads (the requests, the hosts the code names, the
// stubs linked, the files embedded) to print a ready config entry.
if (serverMode) console.log(`${out}: a whole server (kind javascript-server): mcpwasm serve runs it as a process, one per client session`);
if (process.env.MCPWASM_BUILD_REPORT) {
  writeFileSync(process.env.MCPWASM_BUILD_REPORT, JSON.stringify({ server: serverMode, requests: requests || {}, fsFromArgs, hosts: [...namedHosts].sort(), stubs: [...stubs.keys()].sort(), embedded: Object.keys(files).length, bytes: out_.length }));
}

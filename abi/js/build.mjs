// Builds one mcpwasm guest from an MCP server script written for the TypeScript SDK:
//
//   node mcpwasm/build.mjs server.ts NAME.wasm
//
// 1. esbuild bundles the script and its npm dependencies (zod, …) into one ES module, with
//    the SDK's server imports (@modelcontextprotocol/sdk/server/mcp.js, …/server/stdio.js,
//    …/types.js) pointed at mcpwasm/sdk.js, and node:buffer, node:timers and
//    node:timers/promises at the shim's Buffer and timers; any other import the sandbox
//    cannot serve (node:net, fs, child_process, another SDK module) fails the build with its
//    name.
// 2. The engine, quickjs-wasi's quickjs.wasm, is checked against the sha256 pinned below.
// 3. NAME.wasm = the engine + a custom section "mcpwasm.js" holding mcpwasm/shim.js and the
//    bundle, + a custom section "mcpwasm.jsbc" holding the same script compiled to QuickJS
//    bytecode by the same engine (the host loads it ~5× faster than it parses the source): one
//    file, one digest, served by `mcpwasm serve NAME.wasm`.
//
// What the guest asks for (abi/ABI.md §4; the operator's grants decide) is package.json's
// "mcpwasm": {"requests": {…}} if it has one; else it is read off the project's own files
// (not its packages): fetch → net "*:*" (any host and port the operator grants),
// process.env.NAME → env NAME, setTimeout, setInterval, Date.now(), new Date() or
// performance.now() → clock, crypto.getRandomValues, randomUUID or Math.random → random,
// createMessage → sampling, elicitInput → elicitation, listRoots → roots, an import of
// node:fs/promises → fs: the directories its absolute path literals name, writable if it calls
// writeFile, appendFile or mkdir. A file written for Node thus needs nothing added.
import { build } from "esbuild";
import { CompileFlags, EvalFlags, QuickJS } from "quickjs-wasi";
import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { builtinModules, createRequire } from "node:module";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const ENGINE = "quickjs-wasi/quickjs.wasm";
const ENGINE_VERSION = "3.7.0";
const ENGINE_SHA256 = "c0bd8f296e18cf074969f6401b9ecb72609a1323818ec2b9bf7a8f8d740d1363";
const SECTION = "mcpwasm.js";
const BYTECODE_SECTION = "mcpwasm.jsbc";

const here = dirname(fileURLToPath(import.meta.url));
const [entry, out] = process.argv.slice(2);
if (!entry || !out) {
  console.error("usage: node mcpwasm/build.mjs SERVER.ts OUT.wasm");
  process.exit(2);
}

const sdkStub = join(here, "sdk.js");
const sdkModules = new Set(["server/mcp", "server/stdio", "server/completable", "types", "server/index", "server"]);
const builtins = new Set(builtinModules.flatMap((m) => [m, "node:" + m]));

// node:fs/promises (and fs/promises, node:fs's and fs's promises) resolve to the shim's
// file API over the fs grant (request kind "fs"); the rest of node:fs is not there, so an
// import of readFileSync fails the build with esbuild's "No matching export".
const fsModules = new Set(["fs/promises", "node:fs/promises", "fs", "node:fs"]);
const fsNames = ["readFile", "writeFile", "appendFile", "readdir", "stat", "access", "mkdir"];
let importsFS = false;

// Node built-ins the shim serves as globals, by import: node:buffer is the global Buffer;
// node:timers the global timers; node:timers/promises their promise forms (setTimeout(ms,
// value, {signal}), setImmediate(value, {signal}), scheduler.wait). Each also without "node:".
const shimModules = {
  buffer: `export const Buffer = globalThis.Buffer;\nexport default { Buffer };\n`,
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

const guard = {
  name: "mcpwasm",
  setup(b) {
    b.onResolve({ filter: /^(node:)?fs(\/promises)?$/ }, (a) => {
      if (!a.importer.includes("node_modules")) importsFS = true; // the project's own files ask
      return { path: a.path, namespace: "mcpwasm-fs" };
    });
    b.onLoad({ filter: /.*/, namespace: "mcpwasm-fs" }, (a) => ({
      contents: a.path.endsWith("promises")
        ? `const fs = globalThis.__mcpwasm.fs;\nexport const { ${fsNames.join(", ")} } = fs;\nexport default fs;\n`
        : `const fs = globalThis.__mcpwasm.fs;\nexport const promises = fs;\nexport default { promises: fs };\n`,
      loader: "js",
    }));
    b.onResolve({ filter: /^(node:)?(buffer|timers|timers\/promises)$/ }, (a) => {
      const name = a.path.replace(/^node:/, "");
      if (name.startsWith("timers") && !a.importer.includes("node_modules")) importsTimers = true; // timers wait with the clock
      return { path: name, namespace: "mcpwasm-node" };
    });
    b.onLoad({ filter: /.*/, namespace: "mcpwasm-node" }, (a) => ({ contents: shimModules[a.path], loader: "js" }));
    // MCP Apps' server helpers: @modelcontextprotocol/ext-apps/server is the shim's (shim.js,
    // mcp.apps); the rest of ext-apps is the view's side, which runs in the host's browser.
    b.onResolve({ filter: /^@modelcontextprotocol\/ext-apps\/server(\.js)?$/ }, () => ({ path: "ext-apps/server", namespace: "mcpwasm-apps" }));
    b.onLoad({ filter: /.*/, namespace: "mcpwasm-apps" }, () => ({
      contents: `const a = globalThis.__mcpwasm.apps;\nexport const { registerAppTool, registerAppResource, getUiCapability, RESOURCE_MIME_TYPE, RESOURCE_URI_META_KEY, EXTENSION_ID } = a;\n`,
      loader: "js",
    }));
    b.onResolve({ filter: /^@modelcontextprotocol\/sdk(\/|$)/ }, (a) => {
      const sub = a.path.replace(/^@modelcontextprotocol\/sdk\/?/, "").replace(/\.js$/, "");
      if (sdkModules.has(sub)) return { path: sdkStub };
      return { errors: [{ text: `unsupported import "${a.path}" in ${relative(process.cwd(), a.importer)}: mcpwasm serves the SDK's server API (server/mcp.js, server/stdio.js, server/completable.js, types.js); the host is the transport` }] };
    });
    b.onResolve({ filter: /^[^./]/ }, (a) => {
      if (builtins.has(a.path) || a.path.startsWith("node:")) {
        return { errors: [{ text: `unsupported import "${a.path}" in ${relative(process.cwd(), a.importer)}: a mcpwasm guest has no Node.js built-in modules but node:fs/promises, node:buffer, node:timers and node:timers/promises; use fetch, process.env, console, crypto.getRandomValues, node:fs/promises (they go through the operator's grants)` }] };
      }
      return undefined;
    });
  },
};

const result = await build({
  entryPoints: [entry],
  bundle: true,
  format: "esm",
  platform: "neutral",
  mainFields: ["module", "main"],
  nodePaths: [join(process.cwd(), "node_modules")], // the project's packages, wherever the entry is
  // "browser": a package's browser build is the one for this runtime — fetch, crypto's
  // getRandomValues, TextEncoder, URL, AbortController, no Node built-ins — as nanoid's is
  // (its default build imports node:crypto). "node" is never a condition here.
  conditions: ["browser", "import", "default"],
  target: "es2023",
  minify: true,
  charset: "utf8",
  legalComments: "none",
  write: false,
  metafile: true,
  logLevel: "silent",
  plugins: [guard],
}).catch((e) => {
  for (const m of e.errors || []) {
    const where = m.location ? `${m.location.file}:${m.location.line}: ` : "";
    const fs = /^No matching export in "mcpwasm-fs:([^"]+)" for import "([^"]+)"/.exec(m.text);
    const text = fs ? `unsupported import "${fs[2]}" from "${fs[1]}": mcpwasm serves node:fs/promises (${fsNames.join(", ")}) over the fs grant, and node:fs's promises` : m.text;
    console.error(`${where}${text}`);
  }
  if (!e.errors) console.error(String(e));
  process.exit(1);
});

const require = createRequire(join(process.cwd(), "package.json"));
let enginePath;
try {
  enginePath = require.resolve(ENGINE);
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

const pkg = JSON.parse(readFileSync("package.json", "utf8"));
const requests = (pkg.mcpwasm && pkg.mcpwasm.requests) || inferRequests(result.metafile);

// inferRequests reads what the project's own files use (see the top of this file).
function inferRequests(meta) {
  const r = {};
  const env = new Set();
  const dirs = new Set();
  let writes = false;
  for (const file of Object.keys(meta.inputs)) {
    if (file.includes("node_modules/") || file.startsWith("mcpwasm/") || file.includes("/mcpwasm/sdk.js")) continue;
    let src;
    try {
      src = readFileSync(file, "utf8");
    } catch {
      continue;
    }
    // "*:*" is any host on any port (abi/ABI.md's host patterns): "*" alone is any host on
    // the scheme's default port, which left a granted "127.0.0.1:8080" not requested. The
    // operator's grant decides what the guest reaches.
    if (/\bfetch\s*\(/.test(src)) r.net = ["*:*"];
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
  if (importsFS && dirs.size === 0) {
    console.error(`${entry}: imports node:fs but names no absolute directory: add "mcpwasm": {"requests": {"fs": [{"path": "/data", "rw": true}]}} to package.json (the directories the operator may grant)`);
  }
  // Only the shallowest of nested directories: a grant is a whole directory.
  const fs = [...dirs].sort().filter((d, i, all) => !all.some((o) => o !== d && d.startsWith(o + "/")));
  if (fs.length) r.fs = fs.map((path) => (writes ? { path, rw: true } : { path }));
  if (env.size) r.env = [...env].sort();
  return Object.keys(r).length ? r : null;
}
const script =
  (requests ? `globalThis.__mcpwasm={requests:${JSON.stringify(requests)}};\n` : "") +
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
const out_ = Buffer.concat([engine, section(SECTION, source), section(BYTECODE_SECTION, bytecode)]);
writeFileSync(out, out_);
console.log(`${out}: ${out_.length} bytes (engine ${engine.length}, script ${source.length}, bytecode ${bytecode.length}); requests ${JSON.stringify(requests || {})}`);

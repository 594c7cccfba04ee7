// A test guest for mcpwasm's JavaScript kind (guests/typescript_test.go): Node built-ins with
// a sandbox meaning, imported as published servers import them. The tool "probe" answers one
// JSON object of what each gave; "files" reads and writes over the fs grant (/data) with
// node:fs's synchronous and stream forms. Built with node mcpwasm/build.mjs
// testdata/nodebuiltins.js OUT.wasm.
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "url";
import util from "util";
import { EventEmitter } from "events";
import { PassThrough, Readable } from "stream";
import os from "os";
import { createHash, createHmac, randomBytes } from "crypto";
import { StringDecoder } from "string_decoder";
import { isatty } from "tty";
import { Buffer } from "buffer";
import fs, { createReadStream, existsSync, readFileSync, readdirSync, statSync, writeFileSync } from "fs";
import { promises as fsp } from "fs";

const server = new McpServer({ name: "nodebuiltins", version: "1.0.0" });
globalThis.__mcpwasm.requests = { fs: [{ path: "/data", rw: true }], env: ["HOME"] };

server.registerTool("probe", { description: "what the built-ins give" }, async () => {
  const ee = new EventEmitter();
  const seen = [];
  ee.once("x", (v) => seen.push("once:" + v));
  ee.on("x", (v) => seen.push("on:" + v));
  ee.emit("x", 1);
  ee.emit("x", 2);
  const pass = new PassThrough();
  const chunks = [];
  pass.on("data", (c) => chunks.push(c.toString()));
  const ended = new Promise((resolve) => pass.on("end", resolve));
  pass.write("ab");
  pass.end("cd");
  await ended;
  const fromIter = [];
  for await (const v of Readable.from(["p", "q"])) fromIter.push(v);
  const dec = new StringDecoder("utf8");
  const euro = Buffer.from("€");
  const decoded = dec.write(euro.subarray(0, 1)) + "|" + dec.write(euro.subarray(1)) + dec.end();
  const sleep = util.promisify((ms, cb) => cb(null, "slept " + ms));
  const out = {
    join: path.join("/a/b", "../c", "./d.txt"),
    resolve: path.resolve("x", "../y"),
    relative: path.relative("/a/b/c", "/a/d"),
    parse: path.parse("/home/u/file.tar.gz"),
    posix: path.posix === path && path.sep === "/",
    fileURLToPath: fileURLToPath("file:///tmp/a%20b.txt"),
    pathToFileURL: pathToFileURL("/tmp/a b#.txt").href,
    format: util.format("%s has %d items %j", "list", 3, { a: 1 }),
    inspect: util.inspect({ a: [1, "x"], m: new Map([["k", 2]]) }),
    isDate: util.types.isDate(new Date(0)),
    promisify: await sleep(5),
    events: seen,
    stream: chunks.join("") + "," + fromIter.join(""),
    os: [os.EOL === "\n", os.platform(), os.homedir(), os.tmpdir()],
    sha256: createHash("sha256").update("abc").digest("hex"),
    sha1: createHash("sha1").update("abc").digest("hex"),
    md5: createHash("md5").update("").digest("hex"),
    md5long: createHash("md5").update("a".repeat(100)).digest("base64"),
    hmac: createHmac("sha256", "key").update("The quick brown fox jumps over the lazy dog").digest("hex"),
    randomBytes: randomBytes(8).length,
    decoder: decoded,
    isatty: isatty(1),
    argv: process.argv.slice(2),
  };
  return { content: [{ type: "text", text: JSON.stringify(out) }] };
});

server.registerTool("files", { description: "node:fs over the fs grant" }, async () => {
  writeFileSync("/data/sync.txt", "written by writeFileSync");
  const text = readFileSync("/data/sync.txt", "utf8");
  const stream = [];
  for await (const c of createReadStream("/data/sync.txt", { start: 11, end: 14 })) stream.push(c.toString());
  await fsp.writeFile("/data/new.txt", "x", { flag: "wx" });
  let again = "";
  try {
    await fsp.writeFile("/data/new.txt", "y", { flag: "wx" });
  } catch (e) {
    again = e.code;
  }
  let rename = "";
  try {
    fs.renameSync("/data/new.txt", "/data/renamed.txt");
  } catch (e) {
    rename = e.code + " " + e.message;
  }
  let outside = "";
  try {
    readFileSync("/etc/passwd", "utf8");
  } catch (e) {
    outside = e.message;
  }
  const out = {
    text,
    stream: stream.join(""),
    exists: [existsSync("/data/sync.txt"), existsSync("/data/nope")],
    size: statSync("/data/sync.txt").size,
    list: readdirSync("/data"),
    realpath: await fsp.realpath("/data/./sub/../sync.txt"),
    again,
    rename,
    outside,
  };
  return { content: [{ type: "text", text: JSON.stringify(out) }] };
});

await server.connect();

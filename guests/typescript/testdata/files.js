// A test guest for mcpwasm's JavaScript kind (guests/typescript_test.go): node:fs/promises
// over the fs grant. Built by the test with node mcpwasm/build.mjs testdata/files.js OUT.wasm
// (in guests/typescript); the build reads its fs request off the literal "/data" below.
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { readFile, writeFile, readdir, stat, mkdir } from "node:fs/promises";
import * as fs from "fs";
import * as z from "zod/v4";

const root = "/data";
const server = new McpServer({ name: "files", version: "1.0.0" });
const text = (t) => ({ content: [{ type: "text", text: t }] });
const failed = (e) => ({ content: [{ type: "text", text: `${e.code} ${e.syscall} ${e.path}: ${e.message}` }], isError: true });

server.registerTool("save", { inputSchema: { name: z.string(), text: z.string() } }, async ({ name, text: t }) => {
  try {
    const made = await mkdir(`${root}/notes/sub`, { recursive: true });
    await writeFile(`${root}/notes/${name}`, t);
    await fs.promises.writeFile(`${root}/notes/${name}.bin`, new Uint8Array([0, 255, 1]));
    return text(`saved (made ${made})`);
  } catch (e) {
    return failed(e);
  }
});
server.registerTool("load", { inputSchema: { path: z.string() } }, async ({ path }) => {
  try {
    const s = await readFile(path, "utf8");
    const b = await readFile(path);
    return text(`${s}|${b.constructor.name}:${b.length}:${b instanceof Uint8Array}:${b.toString("hex").slice(0, 8)}`);
  } catch (e) {
    return failed(e);
  }
});
server.registerTool("list", { inputSchema: { path: z.string() } }, async ({ path }) => {
  try {
    const names = await readdir(path);
    const typed = await readdir(path, { withFileTypes: true });
    const st = await stat(path + "/" + names[0]);
    return text(
      JSON.stringify({
        names,
        dirs: typed.filter((d) => d.isDirectory()).map((d) => d.name),
        first: { file: st.isFile(), dir: st.isDirectory(), size: st.size, mtime: st.mtime instanceof Date && Math.floor(st.mtimeMs) === st.mtime.getTime() },
      }),
    );
  } catch (e) {
    return failed(e);
  }
});

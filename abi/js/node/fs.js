// node:fs for a mcpwasm guest, over the fs grant (request kind "fs", ABI.md §6.9): the
// promises API, the synchronous reads, writes, stats and listings, their callback forms,
// existsSync and createReadStream. The host offers read, write, append, readdir, stat and
// mkdir; rename, unlink, rm, chmod, copyFile, open and the rest fail with ENOSYS naming that.
// realpath cleans the path and checks it exists (symlinks are followed by the host inside the
// grant, never outside it). Files a package built by mcpwasm build reads relative to itself
// are served read-only without a grant (the shim's embedded files).
import { Readable, Writable } from "./stream.js";

const m = globalThis.__mcpwasm.fsSync;
const { fsSync, fsPath, fsAsync, Stats, Dirent } = m;
const unsupported = (name, syscall) => (path) => {
  const p = typeof path === "string" || path instanceof URL ? fsPath(path) : String(path);
  const e = new Error("ENOSYS: function not implemented, " + syscall + " '" + p + "' (mcpwasm's fs grant offers read, write, append, readdir, stat and mkdir; fs." + name + " is not one of them)");
  throw Object.assign(e, { errno: -38, code: "ENOSYS", syscall, path: p });
};
const clean = (p) => {
  const out = [];
  for (const s of p.split("/")) {
    if (s === "" || s === ".") continue;
    if (s === "..") out.pop();
    else out.push(s);
  }
  return "/" + out.join("/");
};
const abs = (p) => (p.startsWith("/") ? p : (globalThis.process.cwd() || "/").replace(/\/$/, "") + "/" + p);
const sync = {
  readFileSync: (p, o) => fsSync.readFile(fsPath(p), o),
  writeFileSync: (p, d, o) => fsSync.writeFile(fsPath(p), d, o),
  appendFileSync: (p, d, o) => fsSync.appendFile(fsPath(p), d, o),
  readdirSync: (p, o) => fsSync.readdir(fsPath(p), o),
  statSync: (p, o) => {
    try {
      return fsSync.stat(fsPath(p));
    } catch (e) {
      if (o && o.throwIfNoEntry === false && e.code === "ENOENT") return undefined;
      throw e;
    }
  },
  accessSync: (p) => fsSync.access(fsPath(p)),
  mkdirSync: (p, o) => fsSync.mkdir(fsPath(p), o),
  realpathSync: (p) => {
    const r = clean(abs(fsPath(p)));
    fsSync.stat(r);
    return r;
  },
  existsSync: (p) => {
    try {
      fsSync.stat(fsPath(p));
      return true;
    } catch (_) {
      return false;
    }
  },
};
sync.lstatSync = sync.statSync;
sync.realpathSync.native = sync.realpathSync;
const missing = { rename: "rename", unlink: "unlink", rm: "rm", rmdir: "rmdir", chmod: "chmod", chown: "chown", copyFile: "copyfile", cp: "cp", open: "open", symlink: "symlink", link: "link", readlink: "readlink", truncate: "open", utimes: "utime", mkdtemp: "mkdtemp", opendir: "opendir", watch: "watch" };
const promises = Object.assign({}, globalThis.__mcpwasm.fs);
promises.lstat = promises.stat;
promises.realpath = fsAsync((p) => sync.realpathSync(p));
for (const [name, syscall] of Object.entries(missing)) {
  promises[name] = fsAsync(unsupported(name, syscall));
  sync[name + "Sync"] = unsupported(name, syscall);
}
// The callback forms: fs.readFile(path, [options], cb).
const callbackForm = (fn) => (...args) => {
  const cb = args.pop();
  if (typeof cb !== "function") throw new TypeError('The "cb" argument must be of type function');
  let v, err = null;
  try {
    v = fn(...args);
  } catch (e) {
    err = e;
  }
  queueMicrotask(() => (err ? cb(err) : cb(null, v)));
};
const callbacks = {};
for (const k of Object.keys(sync)) if (k.endsWith("Sync")) callbacks[k.slice(0, -4)] = callbackForm(sync[k]);
callbacks.exists = (p, cb) => queueMicrotask(() => cb(sync.existsSync(p)));
export function createReadStream(path, options) {
  const o = typeof options === "string" ? { encoding: options } : options || {};
  const p = fsPath(path);
  let sent = false;
  return new Readable({
    encoding: o.encoding,
    read() {
      if (sent) return;
      sent = true;
      try {
        let b = fsSync.readFile(p);
        if (o.start !== undefined || o.end !== undefined) b = b.subarray(o.start || 0, o.end === undefined ? b.length : o.end + 1);
        this.push(b);
        this.push(null);
      } catch (e) {
        this.destroy(e);
      }
    },
  });
}
export function createWriteStream(path, options) {
  const p = fsPath(path);
  let first = !(options && /^a/.test(options.flags || ""));
  return new Writable({
    write(chunk, enc, cb) {
      try {
        (first ? fsSync.writeFile : fsSync.appendFile)(p, chunk, typeof chunk === "string" ? enc : undefined);
        first = false;
        cb();
      } catch (e) {
        cb(e);
      }
    },
  });
}
export const constants = { F_OK: 0, R_OK: 4, W_OK: 2, X_OK: 1, O_RDONLY: 0, O_WRONLY: 1, O_RDWR: 2, O_CREAT: 64, O_EXCL: 128, O_TRUNC: 512, O_APPEND: 1024, COPYFILE_EXCL: 1 };
promises.constants = constants;
export const { readFileSync, writeFileSync, appendFileSync, readdirSync, statSync, lstatSync, accessSync, mkdirSync, realpathSync, existsSync, renameSync, unlinkSync, rmSync, rmdirSync, chmodSync, copyFileSync, openSync } = sync;
export const { readFile, writeFile, appendFile, readdir, stat, lstat, access, mkdir, realpath, exists, rename, unlink, rm, rmdir, chmod, copyFile, open } = callbacks;
export { promises, Stats, Dirent };
export default Object.assign({ promises, constants, createReadStream, createWriteStream, Stats, Dirent }, sync, callbacks);

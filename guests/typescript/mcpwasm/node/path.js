// node:path for a mcpwasm guest: POSIX paths (the sandbox's file system is POSIX; the working
// directory is "/"). path.win32 is the same object: a guest never runs on Windows.
const assertPath = (p, name = "path") => {
  if (typeof p !== "string") throw new TypeError('The "' + name + '" argument must be of type string. Received ' + (p === null ? "null" : typeof p));
};
export const sep = "/";
export const delimiter = ":";
const normalizeParts = (path, allowAbove) => {
  const out = [];
  for (const s of path.split("/")) {
    if (s === "" || s === ".") continue;
    if (s === "..") {
      if (out.length && out[out.length - 1] !== "..") out.pop();
      else if (allowAbove) out.push("..");
    } else out.push(s);
  }
  return out;
};
export const cwd = () => (globalThis.process && globalThis.process.cwd ? globalThis.process.cwd() : "/");
export function normalize(p) {
  assertPath(p);
  if (p === "") return ".";
  const abs = p.startsWith("/");
  const trailing = p.endsWith("/");
  let s = normalizeParts(p, !abs).join("/");
  if (s === "" && !abs) s = ".";
  if (s !== "" && trailing) s += "/";
  return (abs ? "/" : "") + s;
}
export function join(...parts) {
  for (const p of parts) assertPath(p);
  const s = parts.filter((p) => p !== "").join("/");
  return s === "" ? "." : normalize(s);
}
export function resolve(...parts) {
  let r = "";
  for (let i = parts.length - 1; i >= -1 && !r.startsWith("/"); i--) {
    const p = i >= 0 ? parts[i] : cwd();
    assertPath(p);
    if (p === "") continue;
    r = r === "" ? p : p + "/" + r;
  }
  const s = normalizeParts(r, false).join("/");
  return "/" + s;
}
export const isAbsolute = (p) => (assertPath(p), p.startsWith("/"));
export function relative(from, to) {
  assertPath(from, "from");
  assertPath(to, "to");
  const f = normalizeParts(resolve(from), false);
  const t = normalizeParts(resolve(to), false);
  let i = 0;
  while (i < f.length && i < t.length && f[i] === t[i]) i++;
  return [...f.slice(i).map(() => ".."), ...t.slice(i)].join("/");
}
export function dirname(p) {
  assertPath(p);
  if (p === "") return ".";
  let end = p.length;
  while (end > 1 && p[end - 1] === "/") end--;
  const i = p.lastIndexOf("/", end - 1);
  if (i < 0) return ".";
  if (i === 0) return "/";
  let j = i;
  while (j > 1 && p[j - 1] === "/") j--;
  return p.slice(0, j);
}
export function basename(p, ext) {
  assertPath(p);
  let end = p.length;
  while (end > 1 && p[end - 1] === "/") end--;
  const s = p.slice(p.lastIndexOf("/", end - 1) + 1, end);
  if (ext !== undefined && s !== ext && s.endsWith(ext)) return s.slice(0, s.length - ext.length);
  return s;
}
export function extname(p) {
  const b = basename(p);
  const i = b.lastIndexOf(".");
  return i <= 0 ? "" : b.slice(i);
}
export function parse(p) {
  assertPath(p);
  const root = p.startsWith("/") ? "/" : "";
  const base = basename(p);
  const ext = extname(p);
  let dir = dirname(p);
  if (dir === "." && !p.includes("/")) dir = "";
  return { root, dir, base, ext, name: ext ? base.slice(0, base.length - ext.length) : base };
}
export function format(o) {
  const dir = o.dir || o.root || "";
  const base = o.base || (o.name || "") + (o.ext ? (o.ext.startsWith(".") ? "" : ".") + o.ext : "");
  if (!dir) return base;
  return dir === o.root ? dir + base : dir + "/" + base;
}
export const toNamespacedPath = (p) => p;
export const matchesGlob = () => {
  throw new Error("path.matchesGlob is not available in mcpwasm");
};
const path = { sep, delimiter, normalize, join, resolve, isAbsolute, relative, dirname, basename, extname, parse, format, toNamespacedPath, matchesGlob };
path.posix = path;
path.win32 = path;
export const posix = path;
export const win32 = path;
export default path;

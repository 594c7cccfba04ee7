// node:url for a mcpwasm guest: the shim's URL and URLSearchParams, and file: URL <-> path.
export const URL = globalThis.URL;
export const URLSearchParams = globalThis.URLSearchParams;
export function fileURLToPath(u) {
  const url = typeof u === "string" ? new URL(u) : u;
  if (!url || url.protocol !== "file:") throw new TypeError("The URL must be of scheme file");
  if (url.hostname !== "" && url.hostname !== "localhost") throw new TypeError('File URL host must be "localhost" or empty on this platform');
  if (/%2f/i.test(url.pathname)) throw new TypeError("File URL path must not include encoded / characters");
  return decodeURIComponent(url.pathname);
}
export function pathToFileURL(p) {
  let s = String(p);
  if (!s.startsWith("/")) s = (globalThis.process ? globalThis.process.cwd() : "/").replace(/\/$/, "") + "/" + s;
  const enc = s
    .split("/")
    .map((seg) => encodeURIComponent(seg).replace(/%40/g, "@").replace(/%3A/g, ":").replace(/%2B/g, "+").replace(/%2C/g, ",").replace(/%3D/g, "=").replace(/%24/g, "$").replace(/%26/g, "&"))
    .join("/");
  return new URL("file://" + enc);
}
export const format = (u) => (u instanceof URL ? u.href : String(u && u.href !== undefined ? u.href : u));
export function parse(s) {
  const u = new URL(s);
  return { protocol: u.protocol, host: u.host, hostname: u.hostname, port: u.port || null, pathname: u.pathname, search: u.search || null, hash: u.hash || null, href: u.href, query: u.search ? u.search.slice(1) : null, path: u.pathname + u.search };
}
export const resolve = (from, to) => new URL(to, new URL(from, "resolve://")).href.replace(/^resolve:\/\//, "");
export const domainToASCII = (d) => new URL("http://" + d).hostname;
export default { URL, URLSearchParams, fileURLToPath, pathToFileURL, format, parse, resolve, domainToASCII };

// node:module for a mcpwasm guest: createRequire(url) gives a require that reads JSON files
// (a package's own package.json, embedded by mcpwasm build; or over the fs grant) relative to
// url; anything else is bundled at build time, so require of a module here throws.
import fs from "./fs.js";
import { dirname, resolve } from "./path.js";
import { fileURLToPath } from "./url.js";

export function createRequire(from) {
  const file = String(from).startsWith("file:") ? fileURLToPath(from) : String(from);
  const base = dirname(file);
  const req = (id) => {
    if (/^\.{0,2}\//.test(id) && id.endsWith(".json")) return JSON.parse(fs.readFileSync(resolve(base, id), "utf8"));
    throw new Error('require("' + id + '") from ' + file + ": mcpwasm's createRequire reads JSON files only (the rest of a package is bundled at build time; import it)");
  };
  req.resolve = (id) => resolve(base, id);
  req.cache = {};
  return req;
}
export const builtinModules = [];
export const isBuiltin = () => false;
export default { createRequire, builtinModules, isBuiltin };

// sync.mjs — writes the guest SDK (this directory's shim.js, sdk.js, zod3.js, build.mjs and
// node/*.js: what abi/js.Files lists) into a project's mcpwasm/ directory, each file only when
// it differs. The example guests/typescript runs it before `npm ci` finishes and before every
// `npm run build`, so its mcpwasm/ is generated from this one copy, never committed.
//
//   node ../../abi/js/sync.mjs mcpwasm
import { mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const out = process.argv[2];
if (!out || process.argv.length > 3) {
  console.error("usage: node sync.mjs DIR");
  process.exit(2);
}
const files = ["shim.js", "sdk.js", "zod3.js", "build.mjs"];
for (const f of readdirSync(join(here, "node")).sort()) if (f.endsWith(".js")) files.push(join("node", f));
for (const f of files) {
  const want = readFileSync(join(here, f));
  const dst = join(out, f);
  let have;
  try {
    have = readFileSync(dst);
  } catch {}
  if (have && have.equals(want)) continue;
  mkdirSync(dirname(dst), { recursive: true });
  const tmp = `${dst}.${process.pid}.tmp`; // a concurrent build reads the old file or the new one
  writeFileSync(tmp, want);
  renameSync(tmp, dst);
}

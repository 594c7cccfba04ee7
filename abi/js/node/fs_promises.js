// node:fs/promises for a mcpwasm guest (see fs.js).
import { promises } from "./fs.js";
export const { readFile, writeFile, appendFile, readdir, stat, lstat, access, mkdir, realpath, rename, unlink, rm, rmdir, chmod, copyFile, open, constants } = promises;
export default promises;

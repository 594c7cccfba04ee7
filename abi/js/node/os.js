// node:os for a mcpwasm guest: what a server reads to build paths and messages. homedir is the
// env grant's HOME, else "/"; tmpdir is TMPDIR, else "/tmp" (a path a grant may cover; the
// guest has no file system of its own).
const env = () => (globalThis.process ? globalThis.process.env : {});
export const EOL = "\n";
export const devNull = "/dev/null";
export const platform = () => "linux";
export const type = () => "Linux";
export const arch = () => "wasm32";
export const release = () => "mcpwasm";
export const version = () => "mcpwasm";
export const machine = () => "wasm32";
export const hostname = () => "mcpwasm";
export const homedir = () => env().HOME || "/";
export const tmpdir = () => (env().TMPDIR || "/tmp").replace(/(.)\/$/, "$1");
export const endianness = () => "LE";
export const cpus = () => [];
export const availableParallelism = () => 1;
export const totalmem = () => 0;
export const freemem = () => 0;
export const uptime = () => 0;
export const loadavg = () => [0, 0, 0];
export const networkInterfaces = () => ({});
export const userInfo = () => ({ uid: -1, gid: -1, username: env().USER || "mcpwasm", homedir: homedir(), shell: null });
export const constants = { signals: {}, errno: {} };
export default { EOL, devNull, platform, type, arch, release, version, machine, hostname, homedir, tmpdir, endianness, cpus, availableParallelism, totalmem, freemem, uptime, loadavg, networkInterfaces, userInfo, constants };

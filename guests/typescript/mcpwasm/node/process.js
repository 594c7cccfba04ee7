// node:process for a mcpwasm guest: the shim's process (argv from the config's args, env
// through the env grant, exit failing the start or the call).
const p = globalThis.process;
export default p;
export const { argv, env, platform, version, versions, exit, nextTick, cwd, stdout, stderr, stdin, on, once, off, emit, hrtime, memoryUsage } = p;

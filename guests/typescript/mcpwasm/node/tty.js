// node:tty for a mcpwasm guest: no terminal is ever attached (stdio is the host's log).
export const isatty = () => false;
export class ReadStream {}
export class WriteStream {}
export default { isatty, ReadStream, WriteStream };

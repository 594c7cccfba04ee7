// node:buffer for a mcpwasm guest: the shim's Buffer.
export const Buffer = globalThis.Buffer;
export const constants = { MAX_LENGTH: 2 ** 31 - 1, MAX_STRING_LENGTH: 2 ** 29 - 24 };
export const kMaxLength = constants.MAX_LENGTH;
export const atob = globalThis.atob;
export const btoa = globalThis.btoa;
export const Blob = globalThis.Blob;
export default { Buffer, constants, kMaxLength, atob, btoa, Blob };

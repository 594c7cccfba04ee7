// node:string_decoder for a mcpwasm guest: utf8 (a character split across writes waits for
// its last byte), and the encodings Buffer knows, byte by byte.
export class StringDecoder {
  constructor(encoding = "utf8") {
    this.encoding = String(encoding).toLowerCase().replace("-", "");
    this._rest = new Uint8Array(0);
  }
  write(buf) {
    if (typeof buf === "string") return buf;
    let b = buf instanceof Uint8Array ? buf : new Uint8Array(buf);
    if (this.encoding !== "utf8") return Buffer.from(b).toString(this.encoding);
    if (this._rest.length) {
      const c = new Uint8Array(this._rest.length + b.length);
      c.set(this._rest);
      c.set(b, this._rest.length);
      b = c;
    }
    // Keep an incomplete trailing UTF-8 sequence for the next write.
    let cut = b.length;
    for (let i = Math.max(0, b.length - 3); i < b.length; i++) {
      const x = b[i];
      const need = x >= 0xf0 ? 4 : x >= 0xe0 ? 3 : x >= 0xc0 ? 2 : 0;
      if (need && i + need > b.length) {
        cut = i;
        break;
      }
    }
    this._rest = b.slice(cut);
    return new TextDecoder().decode(b.subarray(0, cut));
  }
  end(buf) {
    let s = buf ? this.write(buf) : "";
    if (this._rest.length) s += new TextDecoder().decode(this._rest);
    this._rest = new Uint8Array(0);
    return s;
  }
}
export default { StringDecoder };

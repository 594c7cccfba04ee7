// node:crypto for a mcpwasm guest: randomBytes, randomUUID, randomInt and getRandomValues
// over the random grant (the shim's crypto: without the grant a fixed sequence), createHash
// for sha1, sha256 and md5 (in JavaScript: no host call), timingSafeEqual. Anything else
// (ciphers, keys, HMAC with other digests) throws naming what is there.
const c = globalThis.crypto;
export const webcrypto = c;
export const getRandomValues = (a) => c.getRandomValues(a);
export const randomUUID = () => c.randomUUID();
export function randomBytes(n, cb) {
  const b = Buffer.alloc(n);
  for (let o = 0; o < n; o += 65536) c.getRandomValues(b.subarray(o, Math.min(n, o + 65536)));
  if (typeof cb === "function") {
    queueMicrotask(() => cb(null, b));
    return undefined;
  }
  return b;
}
export const randomFillSync = (a) => (c.getRandomValues(a), a);
export function randomInt(min, max, cb) {
  if (max === undefined || typeof max === "function") (cb = max), (max = min), (min = 0);
  const range = max - min;
  const b = new Uint32Array(1);
  c.getRandomValues(b);
  const v = min + (b[0] % range);
  if (typeof cb === "function") return void queueMicrotask(() => cb(null, v));
  return v;
}
const rotl = (x, n) => (x << n) | (x >>> (32 - n));
const K256 = [
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
  0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
  0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
];
// pad appends the Merkle–Damgård padding: 0x80, zeros, the bit length (big- or little-endian).
const pad = (msg, little) => {
  const n = msg.length;
  const total = Math.ceil((n + 9) / 64) * 64;
  const b = new Uint8Array(total);
  b.set(msg);
  b[n] = 0x80;
  const bits = n * 8;
  const hi = Math.floor(bits / 2 ** 32), lo = bits >>> 0;
  const dv = new DataView(b.buffer);
  if (little) {
    dv.setUint32(total - 8, lo, true);
    dv.setUint32(total - 4, hi, true);
  } else {
    dv.setUint32(total - 8, hi);
    dv.setUint32(total - 4, lo);
  }
  return dv;
};
const sha256 = (msg) => {
  const dv = pad(msg, false);
  const h = [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19];
  const w = new Int32Array(64);
  for (let o = 0; o < dv.byteLength; o += 64) {
    for (let i = 0; i < 16; i++) w[i] = dv.getInt32(o + 4 * i);
    for (let i = 16; i < 64; i++) {
      const a = w[i - 15], b = w[i - 2];
      const s0 = rotl(a, 25) ^ rotl(a, 14) ^ (a >>> 3);
      const s1 = rotl(b, 15) ^ rotl(b, 13) ^ (b >>> 10);
      w[i] = (w[i - 16] + s0 + w[i - 7] + s1) | 0;
    }
    let [a, b, cc, d, e, f, g, hh] = h;
    for (let i = 0; i < 64; i++) {
      const S1 = rotl(e, 26) ^ rotl(e, 21) ^ rotl(e, 7);
      const ch = (e & f) ^ (~e & g);
      const t1 = (hh + S1 + ch + K256[i] + w[i]) | 0;
      const S0 = rotl(a, 30) ^ rotl(a, 19) ^ rotl(a, 10);
      const maj = (a & b) ^ (a & cc) ^ (b & cc);
      const t2 = (S0 + maj) | 0;
      hh = g;
      g = f;
      f = e;
      e = (d + t1) | 0;
      d = cc;
      cc = b;
      b = a;
      a = (t1 + t2) | 0;
    }
    h[0] = (h[0] + a) | 0; h[1] = (h[1] + b) | 0; h[2] = (h[2] + cc) | 0; h[3] = (h[3] + d) | 0;
    h[4] = (h[4] + e) | 0; h[5] = (h[5] + f) | 0; h[6] = (h[6] + g) | 0; h[7] = (h[7] + hh) | 0;
  }
  const out = new DataView(new ArrayBuffer(32));
  h.forEach((x, i) => out.setInt32(4 * i, x));
  return new Uint8Array(out.buffer);
};
const sha1 = (msg) => {
  const dv = pad(msg, false);
  const h = [0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476, 0xc3d2e1f0];
  const w = new Int32Array(80);
  for (let o = 0; o < dv.byteLength; o += 64) {
    for (let i = 0; i < 16; i++) w[i] = dv.getInt32(o + 4 * i);
    for (let i = 16; i < 80; i++) w[i] = rotl(w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16], 1);
    let [a, b, cc, d, e] = h;
    for (let i = 0; i < 80; i++) {
      const f = i < 20 ? (b & cc) | (~b & d) : i < 40 ? b ^ cc ^ d : i < 60 ? (b & cc) | (b & d) | (cc & d) : b ^ cc ^ d;
      const k = i < 20 ? 0x5a827999 : i < 40 ? 0x6ed9eba1 : i < 60 ? 0x8f1bbcdc : 0xca62c1d6;
      const t = (rotl(a, 5) + f + e + k + w[i]) | 0;
      e = d;
      d = cc;
      cc = rotl(b, 30);
      b = a;
      a = t;
    }
    h[0] = (h[0] + a) | 0; h[1] = (h[1] + b) | 0; h[2] = (h[2] + cc) | 0; h[3] = (h[3] + d) | 0; h[4] = (h[4] + e) | 0;
  }
  const out = new DataView(new ArrayBuffer(20));
  h.forEach((x, i) => out.setInt32(4 * i, x));
  return new Uint8Array(out.buffer);
};
const S = [7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 5, 9, 14, 20, 5, 9, 14, 20, 5, 9, 14, 20, 5, 9, 14, 20, 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21];
const KMD5 = Array.from({ length: 64 }, (_, i) => Math.floor(Math.abs(Math.sin(i + 1)) * 2 ** 32) | 0);
const md5 = (msg) => {
  const dv = pad(msg, true);
  const h = [0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476];
  const m = new Int32Array(16);
  for (let o = 0; o < dv.byteLength; o += 64) {
    for (let i = 0; i < 16; i++) m[i] = dv.getInt32(o + 4 * i, true);
    let [a, b, cc, d] = h;
    for (let i = 0; i < 64; i++) {
      let f, g;
      if (i < 16) (f = (b & cc) | (~b & d)), (g = i);
      else if (i < 32) (f = (d & b) | (~d & cc)), (g = (5 * i + 1) % 16);
      else if (i < 48) (f = b ^ cc ^ d), (g = (3 * i + 5) % 16);
      else (f = cc ^ (b | ~d)), (g = (7 * i) % 16);
      const t = d;
      d = cc;
      cc = b;
      b = (b + rotl((a + f + KMD5[i] + m[g]) | 0, S[i])) | 0;
      a = t;
    }
    h[0] = (h[0] + a) | 0; h[1] = (h[1] + b) | 0; h[2] = (h[2] + cc) | 0; h[3] = (h[3] + d) | 0;
  }
  const out = new DataView(new ArrayBuffer(16));
  h.forEach((x, i) => out.setInt32(4 * i, x, true));
  return new Uint8Array(out.buffer);
};
const digests = { sha1, sha256, md5 };
const toBytes = (data, enc) => (typeof data === "string" ? Buffer.from(data, enc || "utf8") : new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
class Hash {
  constructor(algo) {
    const a = String(algo).toLowerCase().replace("-", "");
    if (!digests[a]) throw new Error("Digest method not supported: " + algo + " (mcpwasm's node:crypto hashes sha1, sha256 and md5)");
    this._fn = digests[a];
    this._parts = [];
  }
  update(data, enc) {
    this._parts.push(toBytes(data, enc));
    return this;
  }
  digest(enc) {
    const d = Buffer.from(this._fn(Buffer.concat(this._parts)));
    return enc ? d.toString(enc) : d;
  }
  copy() {
    const h = Object.create(Hash.prototype);
    h._fn = this._fn;
    h._parts = this._parts.slice();
    return h;
  }
}
export const createHash = (algo) => new Hash(algo);
export const hash = (algo, data, enc = "hex") => createHash(algo).update(data).digest(enc);
export const getHashes = () => ["md5", "sha1", "sha256"];
export function createHmac(algo, key) {
  const fn = new Hash(algo)._fn;
  let k = toBytes(key);
  if (k.length > 64) k = fn(k);
  const kk = new Uint8Array(64);
  kk.set(k);
  const inner = new Hash(algo).update(kk.map((x) => x ^ 0x36));
  return {
    update(d, enc) {
      inner.update(d, enc);
      return this;
    },
    digest(enc) {
      const out = new Hash(algo).update(kk.map((x) => x ^ 0x5c)).update(inner.digest()).digest();
      return enc ? out.toString(enc) : out;
    },
  };
}
export function timingSafeEqual(a, b) {
  if (a.byteLength !== b.byteLength) throw new RangeError("Input buffers must have the same byte length");
  let d = 0;
  for (let i = 0; i < a.byteLength; i++) d |= a[i] ^ b[i];
  return d === 0;
}
const notHere = (name) => () => {
  throw new Error("node:crypto." + name + " is not available in mcpwasm (it has randomBytes, randomUUID, randomInt, getRandomValues, createHash and createHmac for sha1, sha256 and md5, timingSafeEqual)");
};
export const createCipheriv = notHere("createCipheriv");
export const createDecipheriv = notHere("createDecipheriv");
export const createSign = notHere("createSign");
export const createVerify = notHere("createVerify");
export const generateKeyPairSync = notHere("generateKeyPairSync");
export const pbkdf2Sync = notHere("pbkdf2Sync");
export const scryptSync = notHere("scryptSync");
export const subtle = c.subtle;
export default { webcrypto, getRandomValues, randomUUID, randomBytes, randomFillSync, randomInt, createHash, hash, getHashes, createHmac, timingSafeEqual, createCipheriv, createDecipheriv, createSign, createVerify, generateKeyPairSync, pbkdf2Sync, scryptSync, subtle };

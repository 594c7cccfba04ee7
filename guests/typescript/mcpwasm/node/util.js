// node:util for a mcpwasm guest: format, inspect, promisify, callbackify, inherits, deprecate,
// types and the Text codecs.
const isObj = (v) => v !== null && typeof v === "object";
export function inspect(v, opts) {
  const depth = opts && opts.depth !== undefined ? opts.depth : 2;
  const seen = new Set();
  const show = (x, d, top) => {
    if (typeof x === "string") return top ? x : "'" + x.replace(/'/g, "\\'") + "'";
    if (typeof x === "bigint") return x + "n";
    if (typeof x === "symbol") return x.toString();
    if (typeof x === "function") return "[Function: " + (x.name || "(anonymous)") + "]";
    if (!isObj(x)) return Object.is(x, -0) ? "-0" : String(x);
    if (x instanceof Error) return x.stack || x.name + ": " + x.message;
    if (x instanceof Date) return isNaN(x) ? "Invalid Date" : x.toISOString();
    if (x instanceof RegExp) return String(x);
    if (seen.has(x)) return "[Circular *1]";
    if (d > depth) return Array.isArray(x) ? "[Array]" : "[Object]";
    seen.add(x);
    let s;
    if (Array.isArray(x)) s = x.length ? "[ " + x.map((e) => show(e, d + 1)).join(", ") + " ]" : "[]";
    else if (x instanceof Map) s = "Map(" + x.size + ") {" + (x.size ? " " + [...x].map(([k, e]) => show(k, d + 1) + " => " + show(e, d + 1)).join(", ") + " " : "") + "}";
    else if (x instanceof Set) s = "Set(" + x.size + ") {" + (x.size ? " " + [...x].map((e) => show(e, d + 1)).join(", ") + " " : "") + "}";
    else {
      const keys = Object.keys(x);
      const name = x.constructor && x.constructor !== Object && x.constructor.name ? x.constructor.name + " " : "";
      s = keys.length ? name + "{ " + keys.map((k) => (/^[A-Za-z_$][\w$]*$/.test(k) ? k : "'" + k + "'") + ": " + show(x[k], d + 1)).join(", ") + " }" : name + "{}";
    }
    seen.delete(x);
    return s;
  };
  return show(v, 0, false);
}
inspect.custom = Symbol.for("nodejs.util.inspect.custom");
export function format(f, ...args) {
  if (typeof f !== "string") return [f, ...args].map((a) => (typeof a === "string" ? a : inspect(a))).join(" ");
  let i = 0;
  let s = f.replace(/%([sdifjoOc%])/g, (m, c) => {
    if (c === "%") return "%";
    if (i >= args.length) return m;
    const a = args[i++];
    switch (c) {
      case "s":
        return typeof a === "string" ? a : typeof a === "bigint" ? a + "n" : isObj(a) ? inspect(a, { depth: 0 }) : String(a);
      case "d":
      case "i": {
        if (typeof a === "bigint") return a + "n";
        const n = Number(a);
        return String(c === "i" ? Math.trunc(n) : n);
      }
      case "f":
        return String(parseFloat(a));
      case "j":
        try {
          return JSON.stringify(a);
        } catch (_) {
          return "[Circular]";
        }
      case "c":
        return "";
      default:
        return inspect(a);
    }
  });
  for (; i < args.length; i++) s += " " + (typeof args[i] === "string" ? args[i] : inspect(args[i]));
  return s;
}
export const formatWithOptions = (_o, ...a) => format(...a);
const customPromisify = Symbol.for("nodejs.util.promisify.custom");
export function promisify(fn) {
  if (typeof fn !== "function") throw new TypeError('The "original" argument must be of type function');
  if (fn[customPromisify]) return fn[customPromisify];
  return function (...args) {
    return new Promise((resolve, reject) => fn.call(this, ...args, (err, ...vals) => (err ? reject(err) : resolve(vals.length > 1 ? vals : vals[0]))));
  };
}
promisify.custom = customPromisify;
export const callbackify = (fn) =>
  function (...args) {
    const cb = args.pop();
    fn.apply(this, args).then(
      (v) => cb(null, v),
      (e) => cb(e),
    );
  };
export function inherits(ctor, superCtor) {
  Object.defineProperty(ctor, "super_", { value: superCtor, writable: true, configurable: true });
  Object.setPrototypeOf(ctor.prototype, superCtor.prototype);
}
export const deprecate = (fn) => fn;
export const debuglog = () => {
  const f = () => {};
  f.enabled = false;
  return f;
};
export const debug = debuglog;
export const isDeepStrictEqual = (a, b) => {
  if (Object.is(a, b)) return true;
  if (!isObj(a) || !isObj(b) || Object.getPrototypeOf(a) !== Object.getPrototypeOf(b)) return false;
  const ka = Object.keys(a), kb = Object.keys(b);
  return ka.length === kb.length && ka.every((k) => isDeepStrictEqual(a[k], b[k]));
};
const tag = (v) => Object.prototype.toString.call(v).slice(8, -1);
export const types = {
  isDate: (v) => v instanceof Date,
  isRegExp: (v) => v instanceof RegExp,
  isPromise: (v) => v instanceof Promise,
  isMap: (v) => v instanceof Map,
  isSet: (v) => v instanceof Set,
  isNativeError: (v) => v instanceof Error,
  isTypedArray: (v) => ArrayBuffer.isView(v) && !(v instanceof DataView),
  isUint8Array: (v) => v instanceof Uint8Array,
  isArrayBuffer: (v) => v instanceof ArrayBuffer,
  isAnyArrayBuffer: (v) => v instanceof ArrayBuffer || tag(v) === "SharedArrayBuffer",
  isArrayBufferView: (v) => ArrayBuffer.isView(v),
  isAsyncFunction: (v) => tag(v) === "AsyncFunction" || tag(v) === "AsyncGeneratorFunction",
  isGeneratorFunction: (v) => tag(v) === "GeneratorFunction" || tag(v) === "AsyncGeneratorFunction",
  isBoxedPrimitive: (v) => v instanceof Number || v instanceof String || v instanceof Boolean,
  isProxy: () => false,
};
export const isArray = Array.isArray;
export const TextEncoder = globalThis.TextEncoder;
export const TextDecoder = globalThis.TextDecoder;
export const stripVTControlCharacters = (s) => String(s).replace(/\u001b\[[0-9;]*[A-Za-z]/g, "");
export const styleText = (_f, s) => s;
export const aborted = (signal) => new Promise((resolve) => (signal.aborted ? resolve() : signal.addEventListener("abort", () => resolve(), { once: true })));
export default { inspect, format, formatWithOptions, promisify, callbackify, inherits, deprecate, debuglog, debug, isDeepStrictEqual, types, isArray, TextEncoder, TextDecoder, stripVTControlCharacters, styleText, aborted };

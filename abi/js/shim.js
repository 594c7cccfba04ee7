// mcpwasm JavaScript shim: the web-platform basics and the MCP TypeScript SDK's server API
// for a script run by mcpwasm's JavaScript kind (QuickJS under wazero). It is a plain script
// (no imports, no exports) that the build places before the bundled server file, so it runs
// first. Everything outside the engine goes through one host function,
// __mcpwasm_host(op, payload) -> string, which the host maps onto its sandbox: the
// operator's grants decide what a request may do, as for any guest.
//
// The host drives the script through globalThis.__mcpwasm:
//   dispatch(op, json) starts one entry ("describe", "callTool", "readResource",
//     "getPrompt", "complete") and returns "", or its answer (as poll's) if it settled at once;
//   poll() returns "" while the entry's promise is pending (after firing the next timer, if
//     any), or its answer: "R" + result JSON, or "E" + {"error","code"} JSON.
// The host runs the engine's job queue between polls.
(function () {
  "use strict";
  const g = globalThis;
  const hostFn = g.__mcpwasm_host;
  delete g.__mcpwasm_host;
  const host = (op, payload) =>
    hostFn(op, payload === undefined ? "" : typeof payload === "string" ? payload : JSON.stringify(payload));
  // A whole server (build.mjs --server writes globalThis.__mcpwasm.process): the script is a
  // process that reads MCP from process.stdin and writes it to process.stdout, driven by the
  // host's pump (runtime/internal/kind/quickjs/process.go) through __mcpwasm.stdin, .tick and
  // .end; its timers fire at real time between inputs, not only inside a call.
  const procMode = !!(g.__mcpwasm && g.__mcpwasm.process);
  let exiting = null; // the error process.exit threw in a process

  // ---- console → the MCP log ----
  const fmt = (args) =>
    args
      .map((a) => {
        if (typeof a === "string") return a;
        if (a instanceof Error) return a.stack ? a.name + ": " + a.message + "\n" + a.stack : a.name + ": " + a.message;
        try {
          const s = JSON.stringify(a);
          return s === undefined ? String(a) : s;
        } catch (_) {
          return String(a);
        }
      })
      .join(" ");
  let lastError = ""; // the last console.error line: process.exit's message repeats it
  const logAt = (level) => (...args) => {
    const data = fmt(args);
    if (level === "error") lastError = data;
    host("log", { level, data });
  };
  g.console = {
    log: logAt("info"),
    info: logAt("info"),
    debug: logAt("debug"),
    trace: logAt("debug"),
    warn: logAt("warning"),
    error: logAt("error"),
    dir: logAt("info"),
  };

  // ---- timers: fired in due order by poll(), on a virtual clock that advances to each ----
  let timers = [];
  let timerSeq = 0;
  let now = 0;
  const addTimer = (fn, ms, args, repeat) => {
    if (typeof fn !== "function") throw new TypeError("setTimeout: callback is not a function");
    const id = ++timerSeq;
    const delay = Math.max(0, Number(ms) || 0);
    if (procMode) now = Number(host("now")) || now; // the process's clock: ms since it started
    timers.push({ id, at: now + delay, delay, fn, args, repeat, seq: id });
    return procMode ? new Timeout(id) : id;
  };
  // In a process, setTimeout returns a Node-style Timeout (unref, ref, hasRef, refresh; a
  // number as a primitive), as servers written for Node call t.unref().
  class Timeout {
    constructor(id) {
      this.id = id;
    }
    unref() {
      return this;
    }
    ref() {
      return this;
    }
    hasRef() {
      return true;
    }
    refresh() {
      return this;
    }
    [Symbol.toPrimitive]() {
      return this.id;
    }
  }
  const clearTimer = (id) => {
    if (id instanceof Timeout) id = id.id;
    timers = timers.filter((t) => t.id !== id);
  };
  g.setTimeout = (fn, ms, ...args) => addTimer(fn, ms, args, false);
  g.setInterval = (fn, ms, ...args) => addTimer(fn, ms, args, true);
  g.setImmediate = (fn, ...args) => addTimer(fn, 0, args, false);
  g.clearTimeout = g.clearInterval = g.clearImmediate = clearTimer;
  // fireTimer runs the earliest timer; false if there is none.
  const fireTimer = () => {
    if (timers.length === 0) return false;
    let next = 0;
    for (let i = 1; i < timers.length; i++) {
      const a = timers[i], b = timers[next];
      if (a.at < b.at || (a.at === b.at && a.seq < b.seq)) next = i;
    }
    const t = timers[next];
    if (t.at > now) {
      // Waits only when the clock is granted; "ending": cut short because the call is ending
      // (the host aborts the entry's signal before the next poll), so the timer has not come.
      if (host("sleep", String(t.at - now)) === "ending") return true;
      now = t.at;
    }
    if (t.repeat) {
      t.at = now + Math.max(1, t.delay);
      t.seq = ++timerSeq;
    } else {
      timers.splice(next, 1);
    }
    try {
      t.fn(...t.args);
    } catch (e) {
      // A timer's throw is the script's, not the running entry's (the timer may be a stray
      // one an earlier call left): it goes to the log as the guest's error, and the entry
      // goes on. Only what the engine cannot survive (interrupted, out of memory) ends it.
      if (isFatal(e)) throw e;
      if (e === exiting) return true;
      host("log", { level: "error", data: "uncaught exception in a timer callback: " + fmt([e]) });
    }
    return true;
  };

  // tickTimer (a process's pump) fires the earliest timer due at at (ms since the process
  // started) and returns "0", or returns the ms until the next one ("" if none is set).
  const tickTimer = (at) => {
    now = Math.max(now, Number(at) || 0);
    if (timers.length === 0) return "";
    let next = 0;
    for (let i = 1; i < timers.length; i++) {
      const a = timers[i], b = timers[next];
      if (a.at < b.at || (a.at === b.at && a.seq < b.seq)) next = i;
    }
    if (timers[next].at > now) return String(timers[next].at - now);
    fireTimer();
    return "0";
  };

  // ---- engine fixes: where the pinned engine answers differently from Node (V8) ----
  // setUTCFullYear(NaN, …) and setFullYear(NaN, …) leave the time value as it was (0 for
  // new Date(0)) where ECMA-262 §21.4.4.21 makes it NaN: date-fns's parseISO("nope") then
  // gave 1970-01-01 instead of Invalid Date. testdata/engine-probes checks the rest.
  for (const name of ["setUTCFullYear", "setFullYear"]) {
    const orig = Date.prototype[name];
    const fixed = {
      [name](year, ...rest) {
        if (Number.isNaN(Number(year))) {
          orig.call(this, 1970); // the receiver check and its TypeError, as the original
          this.setTime(NaN);
          return NaN;
        }
        return orig.call(this, year, ...rest);
      },
    }[name];
    Object.defineProperty(Date.prototype, name, { value: fixed, writable: true, configurable: true, enumerable: false });
  }

  // ---- text encoding ----
  class TextEncoder {
    get encoding() {
      return "utf-8";
    }
    encode(s = "") {
      s = String(s);
      const out = [];
      for (let i = 0; i < s.length; i++) {
        let c = s.charCodeAt(i);
        if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
          const d = s.charCodeAt(i + 1);
          if (d >= 0xdc00 && d <= 0xdfff) {
            c = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00);
            i++;
          } else c = 0xfffd;
        } else if (c >= 0xd800 && c <= 0xdfff) c = 0xfffd;
        if (c < 0x80) out.push(c);
        else if (c < 0x800) out.push(0xc0 | (c >> 6), 0x80 | (c & 63));
        else if (c < 0x10000) out.push(0xe0 | (c >> 12), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
        else out.push(0xf0 | (c >> 18), 0x80 | ((c >> 12) & 63), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
      }
      return new Uint8Array(out);
    }
  }
  class TextDecoder {
    constructor(label = "utf-8") {
      const l = String(label).toLowerCase();
      if (l !== "utf-8" && l !== "utf8") throw new RangeError("TextDecoder: only utf-8 is supported, not " + label);
    }
    get encoding() {
      return "utf-8";
    }
    decode(buf) {
      if (buf === undefined) return "";
      const b = buf instanceof Uint8Array ? buf : ArrayBuffer.isView(buf) ? new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength) : new Uint8Array(buf);
      let s = "";
      let chunk = [];
      const flush = () => {
        s += String.fromCharCode.apply(null, chunk);
        chunk = [];
      };
      for (let i = 0; i < b.length; ) {
        const c = b[i];
        let cp = 0xfffd, n = 1;
        if (c < 0x80) cp = c;
        else if (c >= 0xc2 && c < 0xe0 && i + 1 < b.length && (b[i + 1] & 0xc0) === 0x80) {
          cp = ((c & 31) << 6) | (b[i + 1] & 63);
          n = 2;
        } else if (c >= 0xe0 && c < 0xf0 && i + 2 < b.length && (b[i + 1] & 0xc0) === 0x80 && (b[i + 2] & 0xc0) === 0x80) {
          cp = ((c & 15) << 12) | ((b[i + 1] & 63) << 6) | (b[i + 2] & 63);
          n = 3;
          if (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff)) cp = 0xfffd;
        } else if (c >= 0xf0 && c < 0xf5 && i + 3 < b.length && (b[i + 1] & 0xc0) === 0x80 && (b[i + 2] & 0xc0) === 0x80 && (b[i + 3] & 0xc0) === 0x80) {
          cp = ((c & 7) << 18) | ((b[i + 1] & 63) << 12) | ((b[i + 2] & 63) << 6) | (b[i + 3] & 63);
          n = 4;
          if (cp < 0x10000 || cp > 0x10ffff) cp = 0xfffd;
        }
        if (cp >= 0x10000) {
          cp -= 0x10000;
          chunk.push(0xd800 + (cp >> 10), 0xdc00 + (cp & 0x3ff));
        } else chunk.push(cp);
        if (chunk.length > 8192) flush();
        i += n;
      }
      flush();
      return s;
    }
  }
  g.TextEncoder = TextEncoder;
  g.TextDecoder = TextDecoder;
  const utf8 = new TextEncoder();
  const fromUTF8 = new TextDecoder();

  // ---- URL (absolute special and opaque URLs; relative references against a base) ----
  const defaultPorts = { "http:": "80", "https:": "443", "ws:": "80", "wss:": "443", "ftp:": "21" };
  class URLSearchParams {
    constructor(init = "") {
      this._list = [];
      if (typeof init === "string") {
        this._parse(init);
      } else if (Array.isArray(init)) {
        for (const [k, v] of init) this._list.push([String(k), String(v)]);
      } else if (init && typeof init === "object") {
        if (init instanceof URLSearchParams) this._list = init._list.map((p) => p.slice());
        else for (const k of Object.keys(init)) this._list.push([k, String(init[k])]);
      }
    }
    _parse(s) {
      this._list = [];
      if (s.startsWith("?")) s = s.slice(1);
      for (const part of s.split("&")) {
        if (part === "") continue;
        const i = part.indexOf("=");
        const dec = (x) => decodeURIComponent(x.replace(/\+/g, " "));
        this._list.push(i < 0 ? [dec(part), ""] : [dec(part.slice(0, i)), dec(part.slice(i + 1))]);
      }
    }
    _changed() {
      if (this._url) this._url._search = this._list.length ? "?" + this.toString() : "";
    }
    append(k, v) {
      this._list.push([String(k), String(v)]);
      this._changed();
    }
    delete(k) {
      this._list = this._list.filter((p) => p[0] !== k);
      this._changed();
    }
    get(k) {
      const p = this._list.find((p) => p[0] === k);
      return p ? p[1] : null;
    }
    getAll(k) {
      return this._list.filter((p) => p[0] === k).map((p) => p[1]);
    }
    has(k) {
      return this._list.some((p) => p[0] === k);
    }
    set(k, v) {
      const i = this._list.findIndex((p) => p[0] === k);
      if (i < 0) this._list.push([String(k), String(v)]);
      else {
        this._list[i][1] = String(v);
        this._list = this._list.filter((p, j) => j <= i || p[0] !== k);
      }
      this._changed();
    }
    sort() {
      this._list.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
      this._changed();
    }
    forEach(fn, self) {
      for (const [k, v] of this._list) fn.call(self, v, k, this);
    }
    keys() {
      return this._list.map((p) => p[0])[Symbol.iterator]();
    }
    values() {
      return this._list.map((p) => p[1])[Symbol.iterator]();
    }
    entries() {
      return this._list.map((p) => p.slice())[Symbol.iterator]();
    }
    [Symbol.iterator]() {
      return this.entries();
    }
    get size() {
      return this._list.length;
    }
    toString() {
      const enc = (x) => encodeURIComponent(x).replace(/%20/g, "+");
      return this._list.map(([k, v]) => enc(k) + "=" + enc(v)).join("&");
    }
  }
  const removeDots = (path) => {
    const out = [];
    const segs = path.split("/");
    for (let i = 0; i < segs.length; i++) {
      const s = segs[i];
      if (s === "..") {
        if (out.length > 1) out.pop();
        if (i === segs.length - 1) out.push("");
      } else if (s === ".") {
        if (i === segs.length - 1) out.push("");
      } else out.push(s);
    }
    return out.join("/");
  };
  // Percent-encode sets (WHATWG URL §1.3), as predicates on a code point.
  const inC0Set = (c) => c < 0x20 || c > 0x7e;
  const inFragmentSet = (c) => inC0Set(c) || c === 0x20 || c === 0x22 || c === 0x3c || c === 0x3e || c === 0x60;
  const inQuerySet = (c) => inC0Set(c) || c === 0x20 || c === 0x22 || c === 0x23 || c === 0x3c || c === 0x3e;
  const inSpecialQuerySet = (c) => inQuerySet(c) || c === 0x27;
  const inPathSet = (c) => inQuerySet(c) || c === 0x3f || c === 0x60 || c === 0x7b || c === 0x7d;
  const inUserinfoSet = (c) => inPathSet(c) || c === 0x2f || c === 0x3a || c === 0x3b || c === 0x3d || c === 0x40 || (c >= 0x5b && c <= 0x5e) || c === 0x7c;
  const hex2 = (b) => "%" + (b < 16 ? "0" : "") + b.toString(16).toUpperCase();
  // pctEncode encodes s's code points in set as %XX of their UTF-8 bytes (a lone surrogate as
  // U+FFFD's); a string with nothing to encode is returned as it is.
  const pctEncode = (s, set) => {
    if (!s) return s;
    let out = "";
    for (const ch of s) {
      let c = ch.codePointAt(0);
      if (!set(c)) {
        out += ch;
        continue;
      }
      if (c >= 0xd800 && c <= 0xdfff) c = 0xfffd;
      if (c < 0x80) out += hex2(c);
      else if (c < 0x800) out += hex2(0xc0 | (c >> 6)) + hex2(0x80 | (c & 63));
      else if (c < 0x10000) out += hex2(0xe0 | (c >> 12)) + hex2(0x80 | ((c >> 6) & 63)) + hex2(0x80 | (c & 63));
      else out += hex2(0xf0 | (c >> 18)) + hex2(0x80 | ((c >> 12) & 63)) + hex2(0x80 | ((c >> 6) & 63)) + hex2(0x80 | (c & 63));
    }
    return out;
  };
  // punycode is RFC 3492's encoding of one label (without "xn--").
  const punycode = (label) => {
    const cps = Array.from(label, (ch) => ch.codePointAt(0));
    const digit = (d) => String.fromCharCode(d + (d < 26 ? 97 : 22));
    const adapt = (delta, points, first) => {
      delta = first ? Math.floor(delta / 700) : delta >> 1;
      delta += Math.floor(delta / points);
      let k = 0;
      for (; delta > 455; k += 36) delta = Math.floor(delta / 35);
      return k + Math.floor((36 * delta) / (delta + 38));
    };
    let out = cps.filter((c) => c < 0x80).map((c) => String.fromCharCode(c)).join("");
    const basic = out.length;
    if (basic > 0) out += "-";
    let n = 0x80, delta = 0, bias = 72, handled = basic;
    while (handled < cps.length) {
      let m = Infinity;
      for (const c of cps) if (c >= n && c < m) m = c;
      delta += (m - n) * (handled + 1);
      n = m;
      for (const c of cps) {
        if (c < n) delta++;
        if (c !== n) continue;
        let q = delta;
        for (let k = 36; ; k += 36) {
          const t = k <= bias ? 1 : k >= bias + 26 ? 26 : k - bias;
          if (q < t) break;
          out += digit(t + ((q - t) % (36 - t)));
          q = Math.floor((q - t) / (36 - t));
        }
        out += digit(q);
        bias = adapt(delta, handled + 1, handled === basic);
        delta = 0;
        handled++;
      }
      delta++;
      n++;
    }
    return out;
  };
  // domainToASCII is a special URL's host: percent-decoded, lowercased, each label with
  // non-ASCII in punycode ("exämple.com" → "xn--exmple-cua.com"), forbidden code points
  // refused (WHATWG URL §3.5; UTS 46's mapping beyond case folding and NFC is not done).
  const domainToASCII = (h) => {
    try {
      h = decodeURIComponent(h);
    } catch (_) {
      throw new TypeError("Invalid URL host: " + h);
    }
    if (typeof h.normalize === "function") h = h.normalize("NFC");
    h = h.toLowerCase().replace(/[\u3002\uff0e\uff61]/g, ".");
    h = h
      .split(".")
      .map((l) => (/[^\x00-\x7f]/.test(l) ? "xn--" + punycode(l) : l))
      .join(".");
    if (/[\x00-\x20#%\/:<>?@[\\\]^|\x7f]/.test(h)) throw new TypeError("Invalid URL host: " + h);
    return h;
  };
  // opaqueHost is a non-special URL's host: forbidden code points refused, the rest
  // percent-encoded with the C0 control set (non-ASCII as UTF-8).
  const opaqueHost = (h) => {
    if (/[\x00\t\n\r #\/:<>?@[\\\]^|]/.test(h)) throw new TypeError("Invalid URL host: " + h);
    return pctEncode(h, inC0Set);
  };
  class URL {
    constructor(input, base) {
      input = String(input).trim();
      const m = /^([a-zA-Z][a-zA-Z0-9+.-]*):(.*)$/.exec(input);
      if (m) this._parseAbsolute(m[1].toLowerCase() + ":", m[2]);
      else {
        if (base === undefined) throw new TypeError("Invalid URL: " + input);
        const b = base instanceof URL ? base : new URL(base);
        this._resolve(b, input);
      }
    }
    _parseAbsolute(protocol, rest) {
      this._protocol = protocol;
      this._username = this._password = this._hostname = this._port = "";
      let hash = "", search = "";
      let i = rest.indexOf("#");
      if (i >= 0) {
        hash = rest.slice(i);
        rest = rest.slice(0, i);
      }
      i = rest.indexOf("?");
      if (i >= 0) {
        search = rest.slice(i);
        rest = rest.slice(0, i);
      }
      const special = protocol in defaultPorts || protocol === "file:";
      if (special) rest = rest.replace(/\\/g, "/");
      if (rest.startsWith("//")) {
        rest = rest.slice(2);
        let j = rest.indexOf("/");
        let auth = j < 0 ? rest : rest.slice(0, j);
        let path = j < 0 ? "" : rest.slice(j);
        const at = auth.lastIndexOf("@");
        if (at >= 0) {
          const cred = auth.slice(0, at);
          auth = auth.slice(at + 1);
          const c = cred.indexOf(":");
          this._username = c < 0 ? cred : cred.slice(0, c);
          this._password = c < 0 ? "" : cred.slice(c + 1);
        }
        let hostname = auth, port = "";
        const pm = /^(\[[^\]]*\]|[^:]*)(?::(\d*))?$/.exec(auth);
        if (!pm) throw new TypeError("Invalid URL: " + protocol + rest);
        hostname = pm[1];
        port = pm[2] || "";
        if (special && protocol !== "file:" && hostname === "") throw new TypeError("Invalid URL: " + protocol + "//" + rest);
        this._hostname = hostname.startsWith("[") ? hostname.toLowerCase() : special ? domainToASCII(hostname) : opaqueHost(hostname);
        this._port = port !== "" && defaultPorts[protocol] === String(Number(port)) ? "" : port === "" ? "" : String(Number(port));
        this._path = special ? removeDots(path === "" ? "/" : path) : path;
        this._opaque = false;
      } else {
        if (special && protocol !== "file:") throw new TypeError("Invalid URL: " + protocol + rest);
        this._path = rest;
        this._opaque = !rest.startsWith("/");
      }
      this._search = search === "?" ? "" : search;
      this._hash = hash === "#" ? "" : hash;
      this._encode();
    }
    // _encode percent-encodes what WHATWG URL's parser encodes (UTF-8, uppercase hex; "%"
    // itself never): non-ASCII and the code points of each component's set, as Node's URL
    // does, so a handler sees the href and template variables a Node server sees.
    _encode() {
      const special = this._protocol in defaultPorts || this._protocol === "file:";
      this._username = pctEncode(this._username, inUserinfoSet);
      this._password = pctEncode(this._password, inUserinfoSet);
      this._path = pctEncode(this._path, this._opaque ? inC0Set : inPathSet);
      this._search = pctEncode(this._search, special ? inSpecialQuerySet : inQuerySet);
      this._hash = pctEncode(this._hash, inFragmentSet);
    }
    _resolve(b, ref) {
      if (b._opaque) throw new TypeError("Invalid URL: " + ref + " against " + b.href);
      if (ref.startsWith("//")) return this._parseAbsolute(b._protocol, ref);
      Object.assign(this, { _protocol: b._protocol, _username: b._username, _password: b._password, _hostname: b._hostname, _port: b._port, _opaque: false });
      let hash = "", search = null;
      let i = ref.indexOf("#");
      if (i >= 0) {
        hash = ref.slice(i);
        ref = ref.slice(0, i);
      }
      i = ref.indexOf("?");
      if (i >= 0) {
        search = ref.slice(i);
        ref = ref.slice(0, i);
      }
      if (ref === "") this._path = b._path;
      else if (ref.startsWith("/")) this._path = removeDots(ref);
      else this._path = removeDots(b._path.slice(0, b._path.lastIndexOf("/") + 1) + ref);
      this._search = search === null ? (ref === "" ? b._search : "") : search === "?" ? "" : search;
      this._hash = hash === "#" ? "" : hash;
      this._encode();
    }
    get protocol() {
      return this._protocol;
    }
    get username() {
      return this._username;
    }
    get password() {
      return this._password;
    }
    get hostname() {
      return this._hostname;
    }
    set hostname(h) {
      this._hostname = String(h).toLowerCase();
    }
    get port() {
      return this._port;
    }
    set port(p) {
      this._port = String(p);
    }
    get host() {
      return this._hostname + (this._port ? ":" + this._port : "");
    }
    get origin() {
      return this._protocol in defaultPorts ? this._protocol + "//" + this.host : "null";
    }
    get pathname() {
      return this._path;
    }
    set pathname(p) {
      p = String(p);
      this._path = pctEncode(p.startsWith("/") ? p : "/" + p, inPathSet);
    }
    get search() {
      return this._search;
    }
    set search(s) {
      s = String(s);
      this._search = pctEncode(s === "" || s === "?" ? "" : s.startsWith("?") ? s : "?" + s, this._protocol in defaultPorts || this._protocol === "file:" ? inSpecialQuerySet : inQuerySet);
      if (this._params) this._params._parse(this._search);
    }
    get searchParams() {
      if (!this._params) {
        this._params = new URLSearchParams(this._search);
        this._params._url = this;
      }
      return this._params;
    }
    get hash() {
      return this._hash;
    }
    set hash(h) {
      h = String(h);
      this._hash = pctEncode(h === "" || h === "#" ? "" : h.startsWith("#") ? h : "#" + h, inFragmentSet);
    }
    get href() {
      let auth = "";
      if (this._username || this._password) auth = this._username + (this._password ? ":" + this._password : "") + "@";
      const authority = this._opaque || (this._hostname === "" && !(this._protocol in defaultPorts) && this._protocol !== "file:") ? "" : "//" + auth + this.host;
      return this._protocol + authority + this._path + this._search + this._hash;
    }
    toString() {
      return this.href;
    }
    toJSON() {
      return this.href;
    }
    static canParse(u, b) {
      try {
        new URL(u, b);
        return true;
      } catch (_) {
        return false;
      }
    }
  }
  g.URL = URL;
  g.URLSearchParams = URLSearchParams;

  // ---- events and abort ----
  class Event {
    constructor(type) {
      this.type = type;
    }
  }
  class EventTarget {
    constructor() {
      this._listeners = {};
    }
    addEventListener(type, fn) {
      (this._listeners[type] = this._listeners[type] || []).push(fn);
    }
    removeEventListener(type, fn) {
      this._listeners[type] = (this._listeners[type] || []).filter((f) => f !== fn);
    }
    dispatchEvent(ev) {
      for (const fn of (this._listeners[ev.type] || []).slice()) typeof fn === "function" ? fn.call(this, ev) : fn.handleEvent(ev);
      const on = this["on" + ev.type];
      if (typeof on === "function") on.call(this, ev);
      return true;
    }
  }
  class AbortSignal extends EventTarget {
    constructor() {
      super();
      this.aborted = false;
      this.reason = undefined;
      this.onabort = null;
    }
    throwIfAborted() {
      if (this.aborted) throw this.reason;
    }
    static abort(reason) {
      const c = new AbortController();
      c.abort(reason);
      return c.signal;
    }
    static timeout(ms) {
      const c = new AbortController();
      setTimeout(() => c.abort(new DOMException("The operation timed out.", "TimeoutError")), ms);
      return c.signal;
    }
  }
  class AbortController {
    constructor() {
      this.signal = new AbortSignal();
    }
    abort(reason) {
      const s = this.signal;
      if (s.aborted) return;
      s.aborted = true;
      s.reason = reason === undefined ? new DOMException("This operation was aborted", "AbortError") : reason;
      s.dispatchEvent(new Event("abort"));
    }
  }
  g.Event = Event;
  g.EventTarget = EventTarget;
  g.AbortSignal = AbortSignal;
  g.AbortController = AbortController;

  // ---- random, env, process ----
  const randomBytes = (n) => {
    const hex = host("random", String(n));
    const out = new Uint8Array(n);
    for (let i = 0; i < n; i++) out[i] = parseInt(hex.substr(i * 2, 2), 16);
    return out;
  };
  g.crypto = {
    getRandomValues(arr) {
      if (!ArrayBuffer.isView(arr)) throw new TypeError("crypto.getRandomValues: argument is not a typed array");
      if (arr.byteLength > 65536) throw new DOMException("crypto.getRandomValues: more than 65536 bytes", "QuotaExceededError");
      new Uint8Array(arr.buffer, arr.byteOffset, arr.byteLength).set(randomBytes(arr.byteLength));
      return arr;
    },
    randomUUID() {
      const b = randomBytes(16);
      b[6] = (b[6] & 0x0f) | 0x40;
      b[8] = (b[8] & 0x3f) | 0x80;
      const h = Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
      return h.slice(0, 8) + "-" + h.slice(8, 12) + "-" + h.slice(12, 16) + "-" + h.slice(16, 20) + "-" + h.slice(20);
    },
  };
  let env;
  const processEnv = () => {
    if (!env) env = JSON.parse(host("env") || "{}");
    return env;
  };
  // process.argv is ["node", the script's path, ...the config's args] (host op "argv": the
  // guest config's "args", argv after the script name), read when first asked for.
  let argv;
  const self = () => g.process;
  g.process = {
    get env() {
      return processEnv();
    },
    get argv() {
      if (!argv) {
        let args = [];
        try {
          args = JSON.parse(host("argv") || "[]");
        } catch (_) {}
        argv = ["node", (g.__mcpwasm && g.__mcpwasm.script) || "/mcpwasm/guest.js"].concat(args);
      }
      return argv;
    },
    set argv(v) {
      argv = v;
    },
    execArgv: [],
    argv0: "node",
    execPath: "/usr/bin/node",
    platform: "linux",
    arch: "wasm32",
    pid: 1,
    ppid: 0,
    title: "mcpwasm",
    release: { name: "node" },
    version: "v22.0.0",
    versions: { node: "22.0.0", mcpwasm: "1" },
    exitCode: undefined,
    // exit ends what is running: at start the load fails, in a call the call fails, each with
    // the guest's own last console.error line (what it printed before exiting).
    exit(code) {
      const c = code === undefined ? g.process.exitCode || 0 : code;
      const e = new Error("process.exit(" + c + ") called" + (lastError ? ": " + lastError : ""));
      if (procMode) {
        host("exit", String(c)); // the pump ends the process after this turn
        exiting = e; // not logged as an uncaught exception where a turn catches it
      }
      throw e;
    },
    abort() {
      throw new Error("process.abort() called");
    },
    nextTick: (fn, ...args) => queueMicrotask(() => fn(...args)),
    on: self,
    once: self,
    off: self,
    addListener: self,
    removeListener: self,
    removeAllListeners: self,
    prependListener: self,
    emit: () => false,
    listeners: () => [],
    listenerCount: () => 0,
    emitWarning: (w) => host("log", { level: "warning", data: String(w && w.message ? w.message : w) }),
    cwd: () => "/",
    chdir() {
      throw new Error("process.chdir is not available in mcpwasm (the working directory is /)");
    },
    umask: () => 0o022,
    getuid: () => -1,
    getgid: () => -1,
    hrtime: Object.assign(
      (prev) => {
        const t = performance.now();
        let s = Math.floor(t / 1000), ns = Math.floor((t % 1000) * 1e6);
        if (prev) {
          s -= prev[0];
          ns -= prev[1];
          if (ns < 0) (s--, (ns += 1e9));
        }
        return [s, ns];
      },
      { bigint: () => BigInt(Math.floor(performance.now() * 1e6)) },
    ),
    uptime: () => performance.now() / 1000,
    memoryUsage: Object.assign(() => ({ rss: 0, heapTotal: 0, heapUsed: 0, external: 0, arrayBuffers: 0 }), { rss: () => 0 }),
    stdout: { isTTY: false, write: (s) => (host("log", { level: "info", data: String(s) }), true), on: self, once: self },
    stderr: { isTTY: false, write: (s) => (host("log", { level: "error", data: String(s) }), true), on: self, once: self },
    stdin: { isTTY: false, on: self, once: self, resume: self, pause: self, setEncoding: self },
  };

  // ---- a process's stdin and stdout: Node-style streams over the host's pipes ----
  if (procMode) {
    if (g.global === undefined) g.global = g; // Node's alias, which bundles made for Node use
    // V8's structured stack traces, which Node packages a bundled server carries (depd, for
    // express) read at load: with Error.prepareStackTrace set, Error.captureStackTrace gives
    // it call sites that name the bundle (the engine keeps no V8 call sites).
    const site = { getFileName: () => "guest.js", getLineNumber: () => 1, getColumnNumber: () => 1, isEval: () => false, getEvalOrigin: () => "", getFunctionName: () => null, getTypeName: () => null, getMethodName: () => null, isNative: () => false, isToplevel: () => true, isConstructor: () => false, getThis: () => undefined, getFunction: () => undefined, toString: () => "guest.js:1:1" };
    const capture = Error.captureStackTrace;
    Error.captureStackTrace = function (obj, fn) {
      const prep = Error.prepareStackTrace;
      if (typeof prep !== "function") return capture ? capture.call(this, obj, fn) : void (obj.stack = new Error().stack);
      const n = Math.max(3, Number(Error.stackTraceLimit) || 10);
      obj.stack = prep(obj, Array.from({ length: n }, () => Object.assign({}, site)));
    };
    // emitter gives o EventEmitter's methods (enough of node:events for a stream's users).
    const emitter = (o) => {
      const ev = new Map();
      const list = (n) => ev.get(n) || [];
      o.on = o.addListener = (n, fn) => (ev.set(n, list(n).concat([fn])), o);
      o.prependListener = (n, fn) => (ev.set(n, [fn].concat(list(n))), o);
      o.once = (n, fn) => {
        const w = (...a) => (o.off(n, w), fn.apply(o, a));
        w.listener = fn;
        return o.on(n, w);
      };
      o.off = o.removeListener = (n, fn) => {
        const l = list(n), i = l.findIndex((x) => x === fn || x.listener === fn);
        if (i >= 0) ev.set(n, l.slice(0, i).concat(l.slice(i + 1)));
        return o;
      };
      o.removeAllListeners = (n) => (n === undefined ? ev.clear() : ev.delete(n), o);
      o.listeners = (n) => list(n).map((x) => x.listener || x);
      o.rawListeners = (n) => list(n).slice();
      o.listenerCount = (n) => list(n).length;
      o.eventNames = () => [...ev.keys()].filter((n) => list(n).length);
      o.setMaxListeners = () => o;
      o.getMaxListeners = () => 10;
      o.emit = (n, ...a) => {
        const l = list(n);
        for (const fn of l) fn.apply(o, a);
        return l.length > 0;
      };
      return o;
    };
    let encoding = null, ended = false;
    const stdin = emitter({ isTTY: false, fd: 0, readable: true, readableEnded: false, destroyed: false });
    stdin.setEncoding = (e) => ((encoding = e || null), stdin);
    stdin.pause = stdin.resume = stdin.unref = stdin.ref = () => stdin;
    stdin.isPaused = () => false;
    stdin.destroy = () => ((stdin.destroyed = true), stdin);
    stdin[Symbol.asyncIterator] = () => {
      throw new Error("process.stdin: async iteration is not supported in mcpwasm; use on('data')");
    };
    const write = (chunk, enc, cb) => {
      if (typeof enc === "function") cb = enc;
      const s = typeof chunk === "string" ? chunk : new TextDecoder().decode(chunk);
      host("stdout", s);
      if (typeof cb === "function") queueMicrotask(() => cb(null));
      return true;
    };
    const stdout = emitter({ isTTY: false, fd: 1, writable: true, writableLength: 0, writableNeedDrain: false, write, end: (c, e, cb) => (c != null && typeof c !== "function" && write(c, e), stdout) });
    const stderr = emitter({ isTTY: false, fd: 2, writable: true, write: (c, e, cb) => (host("log", { level: "error", data: String(typeof c === "string" ? c : new TextDecoder().decode(c)).replace(/\n$/, "") }), typeof (typeof e === "function" ? e : cb) === "function" && queueMicrotask(typeof e === "function" ? e : cb), true) });
    g.process.stdin = stdin;
    g.process.stdout = stdout;
    g.process.stderr = stderr;
    // The pump's entries: stdin(chunk) emits "data" (a Buffer, or a string after
    // setEncoding), end() emits "end" and "close", tick(ms) fires a due timer (tickTimer).
    const mcp0 = (g.__mcpwasm = g.__mcpwasm || {});
    const guarded = (fn) => (...a) => {
      try {
        return fn(...a);
      } catch (e) {
        if (isFatal(e)) throw e;
        if (e !== exiting) host("log", { level: "error", data: "uncaught exception: " + fmt([e]) });
        return "";
      }
    };
    // As Node's stdin in paused mode, data waits until a "data" listener is attached.
    const pending = [];
    const flush = () => {
      while (pending.length && stdin.listenerCount("data") > 0) {
        const chunk = pending.shift();
        stdin.emit("data", encoding ? chunk : Buffer.from(chunk, "utf8"));
      }
    };
    const on = stdin.on;
    stdin.on = stdin.addListener = (n, fn) => {
      on(n, fn);
      if (n === "data" && pending.length) queueMicrotask(guarded(flush));
      return stdin;
    };
    mcp0.stdin = guarded((chunk) => {
      if (ended) return "";
      pending.push(chunk);
      flush();
      return "";
    });
    mcp0.end = guarded(() => {
      if (ended) return "";
      ended = true;
      stdin.readableEnded = true;
      stdin.emit("end");
      stdin.emit("close");
      return "";
    });
    mcp0.tick = guarded((at) => tickTimer(at));
  }

  // ---- fetch over the net grant (request kind "http") ----
  const request = (kind, body) => {
    const r = JSON.parse(host("request", { kind, body }));
    if (r.status !== 0) {
      const e = new Error((r.body && r.body.error) || kind + ": request failed with status " + r.status);
      e.status = r.status;
      throw e;
    }
    return r.body;
  };
  class Headers {
    constructor(init) {
      this._map = new Map();
      if (init instanceof Headers) init.forEach((v, k) => this.append(k, v));
      else if (Array.isArray(init)) for (const [k, v] of init) this.append(k, v);
      else if (init && typeof init === "object") for (const k of Object.keys(init)) this.append(k, init[k]);
    }
    append(k, v) {
      k = String(k).toLowerCase();
      const cur = this._map.get(k);
      this._map.set(k, cur === undefined ? [String(v)] : cur.concat(String(v)));
    }
    set(k, v) {
      this._map.set(String(k).toLowerCase(), [String(v)]);
    }
    get(k) {
      const v = this._map.get(String(k).toLowerCase());
      return v === undefined ? null : v.join(", ");
    }
    has(k) {
      return this._map.has(String(k).toLowerCase());
    }
    delete(k) {
      this._map.delete(String(k).toLowerCase());
    }
    forEach(fn, self) {
      for (const [k, v] of [...this._map].sort()) fn.call(self, v.join(", "), k, this);
    }
    *entries() {
      for (const [k, v] of [...this._map].sort()) yield [k, v.join(", ")];
    }
    keys() {
      return [...this._map.keys()].sort()[Symbol.iterator]();
    }
    *values() {
      for (const [, v] of this.entries()) yield v;
    }
    [Symbol.iterator]() {
      return this.entries();
    }
  }
  const bodyBytes = (body) => {
    if (body === undefined || body === null) return null;
    if (typeof body === "string") return utf8.encode(body);
    if (body instanceof URLSearchParams) return utf8.encode(body.toString());
    if (body instanceof ArrayBuffer) return new Uint8Array(body);
    if (ArrayBuffer.isView(body)) return new Uint8Array(body.buffer, body.byteOffset, body.byteLength);
    throw new TypeError("fetch: unsupported body type (want a string, URLSearchParams, ArrayBuffer or typed array)");
  };
  class Body {
    _bytes() {
      if (this.bodyUsed) return Promise.reject(new TypeError("Body has already been consumed"));
      this.bodyUsed = true;
      return Promise.resolve(this._body || new Uint8Array(0));
    }
    text() {
      return this._bytes().then((b) => fromUTF8.decode(b));
    }
    json() {
      return this.text().then((t) => JSON.parse(t));
    }
    arrayBuffer() {
      return this._bytes().then((b) => b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength));
    }
    bytes() {
      return this._bytes().then((b) => new Uint8Array(b));
    }
  }
  class Request extends Body {
    constructor(input, init = {}) {
      super();
      const src = input instanceof Request ? input : null;
      this.url = src ? src.url : new URL(String(input)).href;
      this.method = String(init.method || (src && src.method) || "GET").toUpperCase();
      this.headers = new Headers(init.headers || (src && src.headers));
      this._body = init.body !== undefined ? bodyBytes(init.body) : src ? src._body : null;
      if (typeof init.body === "string" && !this.headers.has("content-type")) this.headers.set("content-type", "text/plain;charset=UTF-8");
      if (init.body instanceof URLSearchParams && !this.headers.has("content-type")) this.headers.set("content-type", "application/x-www-form-urlencoded;charset=UTF-8");
      this.signal = init.signal || (src && src.signal) || new AbortSignal();
      this.bodyUsed = false;
    }
    clone() {
      return new Request(this);
    }
  }
  class Response extends Body {
    constructor(body, init = {}) {
      super();
      this._body = bodyBytes(body);
      this.status = init.status === undefined ? 200 : init.status;
      this.statusText = init.statusText || "";
      this.headers = new Headers(init.headers);
      this.ok = this.status >= 200 && this.status < 300;
      this.url = init.url || "";
      this.redirected = false;
      this.type = "basic";
      this.bodyUsed = false;
      if (typeof body === "string" && !this.headers.has("content-type")) this.headers.set("content-type", "text/plain;charset=UTF-8");
    }
    clone() {
      return new Response(this._body, { status: this.status, statusText: this.statusText, headers: this.headers, url: this.url });
    }
    static json(data, init = {}) {
      const h = new Headers(init.headers);
      if (!h.has("content-type")) h.set("content-type", "application/json");
      return new Response(JSON.stringify(data), Object.assign({}, init, { headers: h }));
    }
    static error() {
      return new Response(null, { status: 0 });
    }
  }
  const b64chars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  const toBase64 = (b) => {
    let s = "";
    for (let i = 0; i < b.length; i += 3) {
      const n = (b[i] << 16) | ((b[i + 1] || 0) << 8) | (b[i + 2] || 0);
      s += b64chars[(n >> 18) & 63] + b64chars[(n >> 12) & 63] + (i + 1 < b.length ? b64chars[(n >> 6) & 63] : "=") + (i + 2 < b.length ? b64chars[n & 63] : "=");
    }
    return s;
  };
  const fromBase64 = (s) => {
    s = s.replace(/[^A-Za-z0-9+/]/g, "");
    const out = new Uint8Array(Math.floor((s.length * 3) / 4));
    let o = 0;
    for (let i = 0; i < s.length; i += 4) {
      const n = (b64chars.indexOf(s[i]) << 18) | (b64chars.indexOf(s[i + 1]) << 12) | ((b64chars.indexOf(s[i + 2]) & 63) << 6) | (b64chars.indexOf(s[i + 3]) & 63);
      out[o++] = (n >> 16) & 255;
      if (i + 2 < s.length) out[o++] = (n >> 8) & 255;
      if (i + 3 < s.length) out[o++] = n & 255;
    }
    return out.subarray(0, o);
  };
  g.Headers = Headers;
  g.Request = Request;
  g.Response = Response;
  g.fetch = (input, init) =>
    new Promise((resolve, reject) => {
      const req = new Request(input, init);
      if (req.signal.aborted) return reject(req.signal.reason);
      const headers = {};
      req.headers.forEach((v, k) => (headers[k] = [v]));
      const body = { method: req.method, url: req.url, headers };
      if (req._body) {
        const text = fromUTF8.decode(req._body);
        if (utf8.encode(text).length === req._body.length && !text.includes("\ufffd")) body.body = text;
        else body.body_base64 = toBase64(req._body);
      }
      let r;
      try {
        r = request("http", body);
      } catch (e) {
        // The call's end (cancellation, time limit) ended the request: the signal says so.
        if (req.signal.aborted) return reject(req.signal.reason);
        return reject(new TypeError("fetch " + req.url + ": " + e.message));
      }
      const h = new Headers();
      for (const k of Object.keys(r.headers || {})) for (const v of [].concat(r.headers[k])) h.append(k, v);
      const bytes = r.body_base64 !== undefined ? fromBase64(r.body_base64) : utf8.encode(r.body || "");
      const res = new Response(bytes, { status: r.status, headers: h, url: r.url || req.url });
      res.redirected = !!r.url && r.url !== req.url;
      resolve(res);
    });

  // ---- Buffer (the part of Node's a server file and node:fs use) ----
  const encodeString = (s, enc) => {
    switch (String(enc || "utf8").toLowerCase()) {
      case "utf8":
      case "utf-8":
        return utf8.encode(s);
      case "base64":
        return fromBase64(s);
      case "hex": {
        const out = new Uint8Array(s.length >> 1);
        for (let i = 0; i < out.length; i++) out[i] = parseInt(s.substr(2 * i, 2), 16);
        return out;
      }
      case "latin1":
      case "binary":
      case "ascii":
        return Uint8Array.from(s, (c) => c.charCodeAt(0) & 255);
    }
    throw new TypeError("Unknown encoding: " + enc);
  };
  const decodeBytes = (b, enc) => {
    switch (String(enc || "utf8").toLowerCase()) {
      case "utf8":
      case "utf-8":
        return fromUTF8.decode(b);
      case "base64":
        return toBase64(b);
      case "hex":
        return Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
      case "latin1":
      case "binary":
      case "ascii":
        return Array.from(b, (x) => String.fromCharCode(x)).join("");
    }
    throw new TypeError("Unknown encoding: " + enc);
  };
  class Buffer extends Uint8Array {
    static from(v, enc, length) {
      if (typeof v === "string") return Buffer._of(encodeString(v, enc));
      if (v instanceof ArrayBuffer) return new Buffer(v, enc || 0, length === undefined ? v.byteLength - (enc || 0) : length);
      if (ArrayBuffer.isView(v) || Array.isArray(v)) return Buffer._of(v);
      throw new TypeError("Buffer.from: want a string, ArrayBuffer, typed array or array");
    }
    static _of(bytes) {
      const b = new Buffer(bytes.length);
      b.set(bytes);
      return b;
    }
    static alloc(n, fill) {
      const b = new Buffer(n);
      if (fill !== undefined) b.fill(typeof fill === "number" ? fill : encodeString(String(fill))[0]);
      return b;
    }
    static isBuffer(b) {
      return b instanceof Buffer;
    }
    static byteLength(v, enc) {
      return typeof v === "string" ? encodeString(v, enc).length : v.byteLength;
    }
    static concat(list, total) {
      const n = total === undefined ? list.reduce((a, b) => a + b.length, 0) : total;
      const out = new Buffer(n);
      let o = 0;
      for (const b of list) {
        if (o >= n) break;
        out.set(b.subarray(0, n - o), o);
        o += Math.min(b.length, n - o);
      }
      return out;
    }
    toString(enc, start = 0, end = this.length) {
      return decodeBytes(this.subarray(start, end), enc);
    }
    // indexOf, lastIndexOf and includes take a string (in enc), a Buffer or a byte, as Node's.
    indexOf(v, from = 0, enc) {
      if (typeof v === "number") return super.indexOf(v & 255, from);
      const n = typeof v === "string" ? encodeString(v, typeof from === "string" ? from : enc) : v;
      const start = typeof from === "number" ? (from < 0 ? Math.max(0, this.length + from) : from) : 0;
      if (n.length === 0) return Math.min(start, this.length);
      outer: for (let i = start; i <= this.length - n.length; i++) {
        for (let j = 0; j < n.length; j++) if (this[i + j] !== n[j]) continue outer;
        return i;
      }
      return -1;
    }
    lastIndexOf(v, from, enc) {
      if (typeof v === "number") return from === undefined ? super.lastIndexOf(v & 255) : super.lastIndexOf(v & 255, from);
      const n = typeof v === "string" ? encodeString(v, enc) : v;
      outer: for (let i = Math.min(from === undefined ? this.length - n.length : from, this.length - n.length); i >= 0; i--) {
        for (let j = 0; j < n.length; j++) if (this[i + j] !== n[j]) continue outer;
        return i;
      }
      return -1;
    }
    includes(v, from, enc) {
      return this.indexOf(v, from, enc) !== -1;
    }
    toJSON() {
      return { type: "Buffer", data: Array.from(this) };
    }
    equals(o) {
      return this.length === o.length && this.every((x, i) => x === o[i]);
    }
  }
  g.Buffer = Buffer;

  // ---- node:fs/promises over the fs grant (request kind "fs"; ABI.md §6.9) ----
  const errnos = { EPERM: -1, ENOENT: -2, EACCES: -13, EEXIST: -17, ENOTDIR: -20, EISDIR: -21, EINVAL: -22, EFBIG: -27, EROFS: -30, ELOOP: -40, ENAMETOOLONG: -36, ENOTEMPTY: -39 };
  const fsPath = (p) => {
    if (p instanceof URL) {
      if (p.protocol !== "file:") throw new TypeError("The URL must be of scheme file");
      return decodeURIComponent(p.pathname);
    }
    return ArrayBuffer.isView(p) ? fromUTF8.decode(p) : String(p);
  };
  // A package built by mcpwasm build carries the files it reads relative to itself (its
  // package.json, templates) under one read-only root, globalThis.__mcpwasm.files (path →
  // {data} or {data_base64}, set by the build): read, stat and readdir there need no grant;
  // a write is EROFS. Everything else goes to the host.
  const fsError = (code, msg, syscall, path) => Object.assign(new Error(code + ": " + msg + ", " + syscall + " '" + path + "'"), { errno: errnos[code] || -5, code, syscall, path });
  const cleanPath = (p) => {
    const out = [];
    for (const seg of String(p).split("/")) {
      if (seg === "" || seg === ".") continue;
      if (seg === "..") out.pop();
      else out.push(seg);
    }
    return "/" + out.join("/");
  };
  const embeddedCall = (op, path) => {
    const m = g.__mcpwasm;
    const root = m && m.filesRoot;
    if (!root || typeof path !== "string") return null;
    const p = cleanPath(path);
    if (p !== root && !p.startsWith(root + "/")) return null;
    const files = m.files || {};
    const f = files[p];
    const isDir = !f && Object.keys(files).some((k) => k.startsWith(p + "/"));
    const syscall = { read: "open", write: "open", append: "open", readdir: "scandir", stat: "stat", mkdir: "mkdir" }[op] || op;
    if (op === "write" || op === "append" || op === "mkdir") throw fsError("EROFS", "read-only file system (the package's own files, embedded by mcpwasm build)", syscall, path);
    if (!f && !isDir) throw fsError("ENOENT", "no such file or directory", syscall, path);
    if (op === "read") {
      if (isDir) throw fsError("EISDIR", "illegal operation on a directory", "read", path);
      return f;
    }
    if (op === "stat") {
      const size = f ? (f.data !== undefined ? utf8.encode(f.data).length : fromBase64(f.data_base64).length) : 0;
      return { stat: { type: f ? "file" : "dir", size, mode: f ? 0o444 : 0o555, mtime_ms: 0 } };
    }
    if (op === "readdir") {
      if (!isDir) throw fsError("ENOTDIR", "not a directory", syscall, path);
      const seen = new Map();
      for (const k of Object.keys(files)) {
        if (!k.startsWith(p + "/")) continue;
        const rest = k.slice(p.length + 1);
        const i = rest.indexOf("/");
        seen.set(i < 0 ? rest : rest.slice(0, i), i < 0 ? "file" : "dir");
      }
      return { entries: [...seen].sort((a, b) => (a[0] < b[0] ? -1 : 1)).map(([name, type]) => ({ name, type })) };
    }
    return null;
  };
  // fsCall runs one file operation; a refusal throws an Error with Node's code, errno,
  // syscall and path ("ENOENT: no such file or directory, open '/data/x'").
  const fsCall = (op, path, extra) => {
    const em = embeddedCall(op, path);
    if (em) return em;
    const r = JSON.parse(host("request", { kind: "fs", body: Object.assign({ op, path }, extra) }));
    if (r.status === 0) return r.body;
    const e = new Error((r.body && r.body.error) || "fs: request failed with status " + r.status);
    const m = /^(E[A-Z]+): [^,]*, (\w+) /.exec(e.message);
    if (m) Object.assign(e, { errno: errnos[m[1]] || -5, code: m[1], syscall: m[2], path });
    else if (!e.message.includes(path)) e.message += " (fs " + op + " '" + path + "')";
    throw e;
  };
  // fsAsync runs fn as an async fs function: its throw is the promise's rejection, an aborted
  // options.signal rejects first.
  const fsAsync = (fn) => (path, ...rest) =>
    new Promise((resolve) => {
      const o = rest[rest.length - 1];
      if (o && typeof o === "object" && o.signal && o.signal.aborted) throw o.signal.reason;
      resolve(fn(fsPath(path), ...rest));
    });
  const encodingOf = (o) => (typeof o === "string" ? o : o && o.encoding) || null;
  const fsWrite = (op) => (path, data, options) => {
    const enc = encodingOf(options) || "utf8";
    const bytes = typeof data === "string" ? null : ArrayBuffer.isView(data) ? new Uint8Array(data.buffer, data.byteOffset, data.byteLength) : null;
    if (typeof data !== "string" && !bytes) throw new TypeError('The "data" argument must be of type string or an instance of Buffer, TypedArray, or DataView');
    const body = {};
    if (typeof data === "string" && /^utf-?8$/i.test(enc)) body.data = data;
    else {
      const b = bytes || encodeString(data, enc);
      const text = fromUTF8.decode(b);
      if (utf8.encode(text).length === b.length && !text.includes("\ufffd")) body.data = text;
      else body.data_base64 = toBase64(b);
    }
    const flag = (options && typeof options === "object" && options.flag) || "";
    if (flag.includes("x")) {
      // "wx"/"ax": exclusive creation, refused when the path exists.
      let exists = true;
      try {
        fsCall("stat", path);
      } catch (e) {
        if (e.code !== "ENOENT") throw e;
        exists = false;
      }
      if (exists) throw fsError("EEXIST", "file already exists", "open", path);
    }
    fsCall(op === "write" && /^a/.test(flag) ? "append" : op, path, body);
  };
  // FileKind is the type predicates Stats and Dirent share (this._type: "file", "dir",
  // "symlink", or another kind the host reports).
  class FileKind {
    isFile() {
      return this._type === "file";
    }
    isDirectory() {
      return this._type === "dir";
    }
    isSymbolicLink() {
      return this._type === "symlink";
    }
  }
  class Stats extends FileKind {
    constructor(st) {
      super();
      this.size = st.size;
      this.mode = (st.type === "dir" ? 0o040000 : st.type === "symlink" ? 0o120000 : 0o100000) | st.mode;
      this.mtimeMs = this.atimeMs = this.ctimeMs = this.birthtimeMs = st.mtime_ms;
      this.mtime = this.atime = this.ctime = this.birthtime = new Date(st.mtime_ms);
      this._type = st.type;
    }
  }
  class Dirent extends FileKind {
    constructor(name, type, dir) {
      super();
      this.name = name;
      this.parentPath = this.path = dir;
      this._type = type;
    }
  }
  // The file functions, synchronous (the host call is): node:fs's *Sync forms and, through
  // fsAsync, node:fs/promises.
  const fsSync = {
    readFile(path, options) {
      const r = fsCall("read", path);
      const enc = encodingOf(options);
      if (r.data !== undefined && enc && /^utf-?8$/i.test(enc)) return r.data;
      const bytes = r.data_base64 !== undefined ? fromBase64(r.data_base64) : utf8.encode(r.data || "");
      return enc ? decodeBytes(bytes, enc) : Buffer._of(bytes);
    },
    writeFile: fsWrite("write"),
    appendFile: fsWrite("append"),
    readdir(path, options) {
      const entries = fsCall("readdir", path).entries || [];
      return options && options.withFileTypes ? entries.map((e) => new Dirent(e.name, e.type, path)) : entries.map((e) => e.name);
    },
    stat: (path) => new Stats(fsCall("stat", path).stat),
    access(path) {
      fsCall("stat", path);
    },
    mkdir(path, options) {
      const recursive = !!(options && typeof options === "object" && options.recursive);
      const r = fsCall("mkdir", path, { recursive });
      return recursive ? r.first : undefined;
    },
  };
  const fsPromises = {};
  for (const k of Object.keys(fsSync)) fsPromises[k] = fsAsync(fsSync[k]);

  // ---- the MCP server API (what @modelcontextprotocol/sdk/server/mcp.js exports) ----
  const mcp = (g.__mcpwasm = g.__mcpwasm || {});
  let zod = null; // {object, toJSONSchema} from the bundled zod, set by the SDK stub
  const isZod = (s) => !!s && typeof s === "object" && ("_zod" in s || "_def" in s);
  // zod 3 (a package's own "zod": "^3"): the SDK stub registers an adapter (zod3.js).
  let zod3 = null;
  const isZod3Shape = (s) => !!zod3 && isShape(s) && Object.keys(s).length > 0 && Object.values(s).every(zod3.isZod3);
  // A shape is a plain object of zod schemas; {} is the empty shape (a tool with no
  // arguments), as in the SDK, whose tools/list then shows {"type":"object","properties":{}}.
  const isShape = (s) => !!s && typeof s === "object" && !isZod(s) && Object.values(s).every(isZod);
  const isEmptyShape = (s) => isShape(s) && Object.keys(s).length === 0;
  const needZod = () => {
    if (!zod) throw new Error("a zod schema needs zod v4: the SDK stub did not register it");
    return zod;
  };
  // objectSchema returns a zod object schema for a shape or zod schema, or null for JSON
  // Schema. The answer is kept per schema object: a shape's object is made once (zod compiles
  // a parser per schema on first use), and telling the three apart walks the object, which
  // every call would pay (several µs in the engine).
  const objects = new WeakMap();
  const objectSchema = (s) => {
    if (s === undefined || s === null || typeof s !== "object") return null;
    let z = objects.get(s);
    if (z !== undefined) return z;
    if (isZod(s)) z = s;
    else if (!isShape(s)) z = null;
    else if (isZod3Shape(s)) z = zod3.object3(s);
    else if (!zod && isEmptyShape(s)) z = null; // a script without zod: nothing to validate
    else z = needZod().object(s);
    objects.set(s, z);
    return z;
  };
  const jsonSchema = (s, io) => {
    if (s === undefined) return undefined;
    if (isEmptyShape(s) && (io === "input" || !zod)) return { type: "object", properties: {} };
    const z = objectSchema(s);
    if (!z) return s;
    if (zod3 && zod3.isZod3(z)) return zod3.toJSONSchema3(z);
    const out = needZod().toJSONSchema(z, { io, unrepresentable: "any", override: flaglessPatterns });
    delete out.$schema;
    return out;
  };
  // flaglessPatterns drops from a string's JSON Schema each pattern whose zod regex has the
  // i, m or s flag: JSON Schema's pattern has no flags, so its source alone (what
  // toJSONSchema writes) would refuse what the tool accepts ("ABC" against /^[a-f]+$/i), in
  // the host's validation and in any client's. zod still checks it in the guest.
  const flaglessPatterns = (ctx) => {
    const def = ctx.zodSchema && ctx.zodSchema._zod && ctx.zodSchema._zod.def;
    if (!def || def.type !== "string") return;
    const flagged = new Set();
    const see = (re) => {
      if (re instanceof RegExp && /[ims]/.test(re.flags)) flagged.add(re.source);
    };
    see(def.pattern); // a format's own (z.uuid())
    for (const c of def.checks || []) see(c && c._zod && c._zod.def && c._zod.def.pattern);
    if (!flagged.size) return;
    const js = ctx.jsonSchema;
    if (flagged.has(js.pattern)) delete js.pattern;
    if (Array.isArray(js.allOf)) {
      for (const sub of js.allOf) if (sub && flagged.has(sub.pattern)) delete sub.pattern;
      js.allOf = js.allOf.filter((sub) => !sub || typeof sub !== "object" || Object.keys(sub).length > 0);
      if (!js.allOf.length) delete js.allOf;
    }
  };
  class McpError extends Error {
    constructor(code, message, data) {
      super(message);
      this.name = "McpError";
      this.code = code;
      this.data = data;
    }
  }
  const ErrorCode = { ConnectionClosed: -32000, RequestTimeout: -32001, ParseError: -32700, InvalidRequest: -32600, MethodNotFound: -32601, InvalidParams: -32602, InternalError: -32603, UrlElicitationRequired: -32042 };
  class ResourceTemplate {
    // The template matches as the TS SDK's UriTemplate does (1.32.2), so a handler gets the
    // variables it gets on Node: against the URI as new URL(uri).href spells it, one group
    // per expression (its first name; "?"/"&": each name, all required), values left
    // percent-encoded ("note://café" → {id: "caf%C3%A9"}), an exploded value with commas
    // split into an array.
    constructor(uriTemplate, callbacks = {}) {
      this._uriTemplate = String(uriTemplate);
      this._callbacks = callbacks;
      const names = [];
      let re = "^";
      const src = this._uriTemplate;
      const esc = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
      for (let i = 0; i < src.length; ) {
        const open = src.indexOf("{", i);
        if (open < 0) {
          re += esc(src.slice(i));
          break;
        }
        re += esc(src.slice(i, open));
        const close = src.indexOf("}", open);
        if (close < 0) throw new Error("Unclosed template expression");
        const body = src.slice(open + 1, close);
        const op = body !== "" && "+#./?&".includes(body[0]) ? body[0] : "";
        const exploded = body.includes("*");
        const vars = body
          .slice(op.length)
          .split(",")
          .map((v) => v.replace("*", "").trim())
          .filter((v) => v !== "");
        const list = exploded ? "([^/,]+(?:,[^/,]+)*)" : "([^/,]+)";
        if (op === "?" || op === "&") {
          vars.forEach((v, j) => {
            re += (j === 0 ? "\\" + op : "&") + esc(v) + "=([^&]+)";
            names.push({ name: v, exploded });
          });
        } else {
          re += op === "+" || op === "#" ? "(.+)" : op === "." ? "\\.([^/,]+)" : op === "/" ? "/" + list : list;
          names.push({ name: vars[0], exploded });
        }
        i = close + 1;
      }
      this._re = new RegExp(re + "$");
      this._names = names;
    }
    get uriTemplate() {
      return { toString: () => this._uriTemplate, match: (u) => this.match(u) };
    }
    get listCallback() {
      return this._callbacks.list;
    }
    completeCallback(name) {
      return this._callbacks.complete && this._callbacks.complete[name];
    }
    match(uri) {
      const m = this._re.exec(String(uri));
      if (!m) return null;
      const vars = {};
      this._names.forEach(({ name, exploded }, i) => {
        const v = m[i + 1];
        vars[name] = exploded && v.includes(",") ? v.split(",") : v;
      });
      return vars;
    }
  }
  const pick = (o, keys) => {
    const out = {};
    for (const k of keys) if (o && o[k] !== undefined) out[k] = o[k];
    return out;
  };
  let server = null; // the McpServer the script made (one per guest)
  // The host reads the guest's tools, resources and prompts once, when it starts (describe):
  // a change after the first entry is not served. The first such change says so, once, as
  // a warning in the log; the rest are as quiet as before.
  let served = false;
  let toldChange = false;
  let toldList = false; // a ResourceTemplate's list callback is not called: said once
  const changedAfterStart = (what, name, op) => {
    if (!served || toldChange) return;
    toldChange = true;
    host("log", {
      level: "warning",
      data: "mcpwasm reads a guest's " + what + " list once, at start: " + op + " of " + what + ' "' + name + '" after start is not served (' + what + "s/list does not change; neither does it for later changes)",
    });
  };
  // Server is the SDK's low-level server (…/server/index.js): a script made with it (SDK
  // 1.0.1 on) registers handlers by request schema — setRequestHandler(ListToolsRequestSchema,
  // fn) — and mcpwasm calls them: tools/list, resources/list, resources/templates/list and
  // prompts/list once at start (the manifest), tools/call, resources/read, prompts/get and
  // completion/complete per request. McpServer.server is one too: a handler set there takes
  // over the McpServer's own for that method. A schema is the SDK's zod object or ours
  // (types.js): its method is schema.shape.method.value.
  let lowServer = null; // the script's Server (a McpServer's own, or one made directly)
  const methodOf = (schema) => {
    const m = schema && (schema.method || (schema.shape && schema.shape.method && (schema.shape.method.value !== undefined ? schema.shape.method.value : schema.shape.method._def && schema.shape.method._def.value)));
    if (typeof m !== "string") throw new Error("setRequestHandler: the schema names no method (want one of @modelcontextprotocol/sdk/types.js's *RequestSchema)");
    return m;
  };
  class Server {
    constructor(info, options, owner) {
      this._owner = owner || null;
      this._info = (owner ? owner._info : info) || {};
      this._options = (owner ? owner._options : options) || {};
      this._handlers = new Map();
      this._notificationHandlers = new Map();
      this.oninitialized = undefined;
      this.onclose = undefined;
      this.onerror = undefined;
      lowServer = this;
    }
    createMessage(params) {
      return Promise.resolve().then(() => request("sampling", params));
    }
    elicitInput(params) {
      return Promise.resolve().then(() => request("elicitation", params));
    }
    listRoots(params) {
      return Promise.resolve().then(() => request("roots", params || {}));
    }
    ping() {
      return Promise.resolve({});
    }
    sendLoggingMessage(params) {
      host("log", { level: params.level || "info", data: typeof params.data === "string" ? params.data : JSON.stringify(params.data) });
      return Promise.resolve();
    }
    sendResourceUpdated(params) {
      return sendNotification({ method: "notifications/resources/updated", params });
    }
    sendResourceListChanged() {
      return Promise.resolve();
    }
    sendToolListChanged() {
      return Promise.resolve();
    }
    sendPromptListChanged() {
      return Promise.resolve();
    }
    notification(n) {
      return sendNotification(n);
    }
    request(req) {
      return sendRequest(req);
    }
    connect() {
      return Promise.resolve();
    }
    close() {
      return Promise.resolve();
    }
    getClientCapabilities() {
      return undefined;
    }
    getClientVersion() {
      return undefined;
    }
    registerCapabilities(c) {
      this._options.capabilities = Object.assign({}, this._options.capabilities, c);
    }
    assertCanSetRequestHandler() {}
    setRequestHandler(schema, handler) {
      const m = methodOf(schema);
      if (typeof handler !== "function") throw new TypeError("setRequestHandler(" + m + "): the handler is not a function");
      this._handlers.set(m, handler);
    }
    removeRequestHandler(schema) {
      this._handlers.delete(methodOf(schema));
    }
    // Notifications from the client (roots/list_changed, cancelled, …) are the host's: a
    // handler set here is kept and never called.
    setNotificationHandler(schema, handler) {
      this._notificationHandlers.set(methodOf(schema), handler);
    }
    removeNotificationHandler(schema) {
      this._notificationHandlers.delete(methodOf(schema));
    }
  }
  // lowHandler returns the script's handler for method, or undefined.
  const lowHandler = (method) => lowServer && lowServer._handlers.get(method);
  // callLow runs a low-level handler as the SDK does: handler({method, params}, extra).
  const callLow = (fn, method, params) => fn({ method, params: params || {} }, extra());
  // listAll calls a list handler page by page (nextCursor) and returns the items under key.
  const listAll = async (fn, method, key) => {
    const out = [];
    let cursor;
    for (let i = 0; i < 1000; i++) {
      const r = await callLow(fn, method, cursor === undefined ? {} : { cursor });
      if (r && Array.isArray(r[key])) out.push(...r[key]);
      cursor = r && r.nextCursor;
      if (cursor === undefined || cursor === null || cursor === "") break;
    }
    return out;
  };
  const sendNotification = (n) => {
    if (n && n.method === "notifications/progress" && n.params) {
      const p = n.params;
      host("progress", { progress: Number(p.progress) || 0, total: p.total === undefined ? 0 : Number(p.total), message: p.message || "" });
    } else if (n && n.method === "notifications/message" && n.params) {
      const p = n.params;
      host("log", { level: p.level || "info", data: typeof p.data === "string" ? p.data : JSON.stringify(p.data) });
    } else if (n && n.method === "notifications/resources/updated" && n.params) {
      request("resource.updated", { uri: n.params.uri });
    }
    return Promise.resolve();
  };
  class McpServer {
    constructor(info = {}, options = {}) {
      this._info = info;
      this._options = options;
      this._tools = new Map();
      this._resources = new Map();
      this._templates = new Map();
      this._prompts = new Map();
      server = this;
      this.server = new Server(info, options, this);
    }
    connect() {
      return Promise.resolve();
    }
    close() {
      return Promise.resolve();
    }
    isConnected() {
      return true;
    }
    sendLoggingMessage(params) {
      return this.server.sendLoggingMessage(params);
    }
    sendToolListChanged() {}
    sendResourceListChanged() {}
    sendPromptListChanged() {}
    registerTool(name, config, handler) {
      if (this._tools.has(name)) throw new Error("Tool " + name + " is already registered");
      for (const k of ["inputSchema", "outputSchema"]) {
        const sc = config && config[k];
        if (sc !== undefined && (!sc || typeof sc !== "object" || (!isZod(sc) && !isShape(sc) && sc.type !== "object"))) {
          throw new Error("Tool " + name + ": " + k + " must be a zod shape ({name: z.string()}, or {} for no arguments), a zod object or a JSON Schema with \"type\": \"object\"");
        }
      }
      const t = { name, config: config || {}, handler, enabled: true };
      changedAfterStart("tool", name, "registerTool");
      this._tools.set(name, t);
      return this._handle(this._tools, name, t, "tool");
    }
    tool(name, ...rest) {
      // The SDK's older form: tool(name, [description], [paramsShape], [annotations], handler).
      const handler = rest.pop();
      const config = {};
      if (typeof rest[0] === "string") config.description = rest.shift();
      if (rest.length && isShape(rest[0])) config.inputSchema = rest.shift();
      if (rest.length) config.annotations = rest.shift();
      return this.registerTool(name, config, handler);
    }
    registerResource(name, uriOrTemplate, config, handler) {
      const r = { name, config: config || {}, handler, enabled: true };
      if (uriOrTemplate instanceof ResourceTemplate) {
        r.template = uriOrTemplate;
        changedAfterStart("resource", name, "registerResource");
        this._templates.set(name, r);
        return this._handle(this._templates, name, r, "resource");
      }
      r.uri = String(uriOrTemplate);
      changedAfterStart("resource", name, "registerResource");
      this._resources.set(r.uri, r);
      return this._handle(this._resources, r.uri, r, "resource");
    }
    resource(name, uriOrTemplate, ...rest) {
      const handler = rest.pop();
      return this.registerResource(name, uriOrTemplate, rest[0] || {}, handler);
    }
    registerPrompt(name, config, handler) {
      const p = { name, config: config || {}, handler, enabled: true };
      changedAfterStart("prompt", name, "registerPrompt");
      this._prompts.set(name, p);
      return this._handle(this._prompts, name, p, "prompt");
    }
    prompt(name, ...rest) {
      const handler = rest.pop();
      const config = {};
      if (typeof rest[0] === "string") config.description = rest.shift();
      if (rest.length) config.argsSchema = rest.shift();
      return this.registerPrompt(name, config, handler);
    }
    _handle(map, key, entry, what) {
      const changed = (op) => changedAfterStart(what, entry.name, op);
      return {
        enable: () => (changed("enable()"), (entry.enabled = true)),
        disable: () => (changed("disable()"), (entry.enabled = false)),
        remove: () => (changed("remove()"), map.delete(key)),
        update: (u) => (changed("update()"), Object.assign(entry.config, u)),
        get enabled() {
          return entry.enabled;
        },
      };
    }
  }
  class StdioServerTransport {
    start() {
      return Promise.resolve();
    }
    close() {
      return Promise.resolve();
    }
    send() {
      return Promise.resolve();
    }
  }
  // completable (…/server/completable.js) marks a prompt argument's schema with its completer.
  const completable = (schema, complete) => {
    Object.defineProperty(schema, "_mcpwasmComplete", { value: complete, enumerable: false });
    return schema;
  };
  mcp.sdk = { McpServer, ResourceTemplate, Server, StdioServerTransport, McpError, ErrorCode, completable };
  // MCP Apps' server helpers (what @modelcontextprotocol/ext-apps/server exports; build.mjs
  // points that import here): registerAppTool writes the view's URI under both _meta.ui.resourceUri
  // and the deprecated flat _meta["ui/resourceUri"]; registerAppResource defaults the MIME
  // type to the MCP Apps one. The host negotiates the extension (io.modelcontextprotocol/ui).
  const APP_MIME = "text/html;profile=mcp-app";
  const APP_URI_KEY = "ui/resourceUri";
  mcp.apps = {
    RESOURCE_MIME_TYPE: APP_MIME,
    RESOURCE_URI_META_KEY: APP_URI_KEY,
    EXTENSION_ID: "io.modelcontextprotocol/ui",
    registerAppTool(s, name, config, handler) {
      const meta = (config && config._meta) || {};
      const ui = meta.ui;
      const legacy = meta[APP_URI_KEY];
      let m = meta;
      if (ui && ui.resourceUri && !legacy) m = Object.assign({}, meta, { [APP_URI_KEY]: ui.resourceUri });
      else if (legacy && !(ui && ui.resourceUri)) m = Object.assign({}, meta, { ui: Object.assign({}, ui, { resourceUri: legacy }) });
      return s.registerTool(name, Object.assign({}, config, { _meta: m }), handler);
    },
    registerAppResource(s, name, uri, config, read) {
      return s.registerResource(name, uri, Object.assign({ mimeType: APP_MIME }, config), read);
    },
    // A guest's lists are read once, at start, before any client: it cannot see one client's
    // capabilities. The host gives _meta.ui only to clients that declared the extension.
    getUiCapability(caps) {
      return caps && caps.extensions ? caps.extensions["io.modelcontextprotocol/ui"] : undefined;
    },
  };
  mcp.fs = fsPromises; // what node:fs/promises resolves to (build.mjs)
  // node:fs (mcpwasm/node/fs.js) builds on these: the synchronous forms (paths as given),
  // the path reader and the classes.
  mcp.fsSync = { fsSync, fsPath, fsAsync, fsCall, Stats, Dirent };
  mcp.setZod = (z, z3) => {
    zod = z;
    zod3 = z3 || null;
  };

  // ---- the host's entry points ----
  // describe reads the manifest: McpServer's registrations, or what a low-level Server's list
  // handlers return (then a promise: they are async).
  const describe = () => {
    if (!server && !lowServer) throw new Error("the script made no McpServer or Server (@modelcontextprotocol/sdk/server/mcp.js or server/index.js)");
    const lists = { "tools/list": "tools", "resources/list": "resources", "resources/templates/list": "resourceTemplates", "prompts/list": "prompts" };
    if (!Object.keys(lists).some((m) => lowHandler(m))) return describeMcp();
    const m = server ? describeMcp() : { name: lowServer._info.name || "script", version: lowServer._info.version || "", tools: [] };
    if (!server && lowServer._info.description) m.description = lowServer._info.description;
    if (!server) {
      const rq = requestsNow();
      if (rq) m.requests = rq;
    }
    return (async () => {
      for (const method of Object.keys(lists)) {
        const fn = lowHandler(method);
        if (!fn) continue;
        const items = await listAll(fn, method, lists[method]);
        if (items.length || method === "tools/list") m[lists[method]] = items;
        else delete m[lists[method]];
      }
      if (lowHandler("completion/complete")) m.completions = true;
      return m;
    })();
  };
  const describeMcp = () => {
    const s = server;
    const tools = [];
    for (const t of s._tools.values()) {
      if (!t.enabled) continue;
      const c = t.config;
      const tool = Object.assign({ name: t.name }, pick(c, ["title", "description", "annotations", "icons", "_meta"]));
      tool.inputSchema = c.inputSchema === undefined ? { type: "object", properties: {} } : jsonSchema(c.inputSchema, "input");
      if (c.outputSchema !== undefined) tool.outputSchema = jsonSchema(c.outputSchema, "output");
      tools.push(tool);
    }
    const resources = [];
    for (const r of s._resources.values()) if (r.enabled) resources.push(Object.assign({ uri: r.uri, name: r.name }, pick(r.config, ["title", "description", "mimeType", "_meta"])));
    const resourceTemplates = [];
    const listed = [];
    for (const r of s._templates.values()) {
      if (!r.enabled) continue;
      resourceTemplates.push(Object.assign({ uriTemplate: r.template._uriTemplate, name: r.name }, pick(r.config, ["title", "description", "mimeType", "_meta"])));
      if (typeof r.template._callbacks.list === "function") listed.push('"' + r.name + '"');
    }
    if (listed.length && !toldList) {
      // resources/list is served from this manifest, read at start: no entry asks the
      // script at list time (Node's SDK calls list then).
      toldList = true;
      host("log", {
        level: "warning",
        data: "ResourceTemplate " + listed.join(", ") + ": a list callback is not called by mcpwasm: resources/list shows the template, not the resources list would return (the lists are read once, at start)",
      });
    }
    const prompts = [];
    let completions = false;
    for (const p of s._prompts.values()) {
      if (!p.enabled) continue;
      const args = [];
      const shape = p.config.argsSchema || {};
      for (const k of Object.keys(shape)) {
        const z = shape[k];
        const opt = z && typeof z.isOptional === "function" ? z.isOptional() : false;
        const a = { name: k };
        if (z && z.description) a.description = z.description;
        if (!opt) a.required = true;
        if (z && typeof z._mcpwasmComplete === "function") completions = true;
        args.push(a);
      }
      const prompt = Object.assign({ name: p.name }, pick(p.config, ["title", "description"]));
      if (args.length) prompt.arguments = args;
      prompts.push(prompt);
    }
    for (const r of s._templates.values()) if (r.template._callbacks.complete) completions = true;
    const m = { name: s._info.name || "script", version: s._info.version || "", tools };
    if (s._info.description) m.description = s._info.description;
    if (resources.length) m.resources = resources;
    if (resourceTemplates.length) m.resourceTemplates = resourceTemplates;
    if (prompts.length) m.prompts = prompts;
    if (completions) m.completions = true;
    const rq = requestsNow();
    if (rq) m.requests = rq;
    return m;
  };
  // requestsNow is what the guest asks for: mcp.requests, and for a package built with its
  // directories from its arguments (build.mjs: fsFromArgs) each absolute path of
  // process.argv.slice(2) as an fs request.
  const requestsNow = () => {
    if (!mcp.fsFromArgs) return mcp.requests;
    const r = Object.assign({}, mcp.requests);
    const dirs = g.process.argv.slice(2).filter((a) => typeof a === "string" && a.startsWith("/")).map(cleanPath);
    r.fs = (r.fs || []).filter((f) => f.path !== "$ARGS").concat(dirs.map((path) => (mcp.fsFromArgs === "rw" ? { path, rw: true } : { path })));
    if (!r.fs.length) delete r.fs;
    return r;
  };
  const fieldOf = (issue) => (issue.path && issue.path.length ? issue.path.join(".") : "(arguments)");
  const invalid = (where, err) => {
    const issues = err && err.issues;
    const msg = issues && issues.length ? issues.map((i) => fieldOf(i) + ": " + i.message).join("; ") : String(err && err.message);
    return new McpError(ErrorCode.InvalidParams, where + ": " + msg);
  };
  // parse validates args with a zod schema (async refinements too); JSON Schema is the host's.
  // Synchronous first (much cheaper), and then it returns the value itself, not a promise:
  // every await is a trip through the job queue. A schema with async refinements needs
  // safeParseAsync: then it returns a promise. An error names where + name (joined only
  // then: most calls have no error).
  const parse = (schema, args, where, name) => {
    const z = objectSchema(schema);
    if (!z) return args;
    let r;
    try {
      r = z.safeParse(args);
    } catch (e) {
      return z.safeParseAsync(args).then((r) => {
        if (!r.success) throw invalid(where + name, r.error);
        return r.data;
      });
    }
    if (!r.success) throw invalid(where + name, r.error);
    return r.data;
  };
  const isThenable = (v) => v !== null && (typeof v === "object" || typeof v === "function") && typeof v.then === "function";
  // The running entry. Its AbortController (extra.signal, entryController below) is made when
  // first asked for — by a handler or by the host's abort: most handlers never do, and making
  // one costs more than the rest of an entry's setup.
  // An entry is also its answer (out: what poll returns, "" until it settles), settled by its
  // methods: the synchronous path makes no closure. Its one own property at first is out (each
  // property a constructor adds costs as much as a small object): meta (the request's _meta,
  // when it has a progress token) and _abort are added when set, id is the prototype's.
  class Entry {
    constructor() {
      this.out = "";
    }
    get abort() {
      return this._abort || (this._abort = entryController());
    }
    settle(out) {
      this.out = out;
    }
    // answer settles with the entry's result (a throw of JSON.stringify is its failure).
    answer(v) {
      try {
        this.settle("R" + JSON.stringify(v === undefined ? null : v));
      } catch (e) {
        this.fail(e);
      }
    }
    // fail settles with the entry's JSON-RPC error, or "F" for what the engine cannot survive.
    fail(e) {
      if (isFatal(e)) this.settle("F" + errText(e));
      else this.settle("E" + JSON.stringify({ error: errText(e), code: e instanceof McpError ? e.code : ErrorCode.InternalError }));
    }
  }
  Entry.prototype.id = 1; // the request id a handler sees (one request at a time)
  let current = null; // the running Entry
  const requestKinds = { "sampling/createMessage": "sampling", "elicitation/create": "elicitation", "roots/list": "roots" };
  const sendRequest = (req) => {
    const k = req && requestKinds[req.method];
    if (!k) return Promise.reject(new Error("sendRequest: " + (req && req.method) + " is not supported by mcpwasm"));
    return Promise.resolve().then(() => request(k, req.params || {}));
  };
  // extra is the handler's RequestHandlerExtra: own, enumerable properties as the SDK's object
  // literal, signal first, an accessor that makes the entry's AbortController when first read.
  // The accessor is one shared getter put in place of the literal's placeholder (an object
  // literal with a getter makes a new function on every call).
  const signalProperty = {
    get() {
      return this._entry.abort.signal;
    },
    enumerable: true,
    configurable: true,
  };
  const extra = () =>
    Object.defineProperty(
      { signal: undefined, _entry: current, requestId: current.id, _meta: current.meta, sessionId: undefined, authInfo: undefined, sendNotification, sendRequest },
      "signal",
      signalProperty,
    );
  const errText = (e) => (e instanceof Error ? e.message : String(e));
  const isFatal = (e) => e instanceof InternalError && /out of memory|interrupted|stack overflow/.test(e.message);
  // A tool handler's throw is its result (isError), but for what must stay a JSON-RPC error.
  const toolError = (e) => {
    if (isFatal(e) || (e instanceof McpError && e.code === ErrorCode.InvalidParams && /^Input validation error/.test(e.message))) throw e;
    return { content: [{ type: "text", text: errText(e) }], isError: true };
  };
  // callHandler runs tool t's handler with its parsed arguments. structuredContent is checked
  // against the outputSchema by the host, as for any guest.
  const callHandler = (t, args) => {
    const r = t.config.inputSchema === undefined ? t.handler(extra()) : t.handler(args, extra());
    return isThenable(r) ? Promise.resolve(r).then(undefined, toolError) : r;
  };
  const entries = {
    describe,
    // callTool answers synchronously when it can (a schema parsed synchronously, a handler
    // returning a value), else with a promise: the host runs the job queue only as long as
    // an entry is pending, and each await would cost a trip through it.
    callTool(p) {
      const low = lowHandler("tools/call");
      if (low) {
        if (p._meta && p._meta.progressToken !== undefined) current.meta = p._meta;
        return callLow(low, "tools/call", p);
      }
      const t = server && server._tools.get(p.name);
      if (!t || !t.enabled) throw new McpError(ErrorCode.InvalidParams, "Tool " + p.name + " not found");
      if (p._meta && p._meta.progressToken !== undefined) current.meta = p._meta;
      try {
        const args = parse(t.config.inputSchema, p.arguments || {}, "Input validation error: Invalid arguments for tool ", p.name);
        return isThenable(args) ? args.then((a) => callHandler(t, a)).then(undefined, toolError) : callHandler(t, args);
      } catch (e) {
        return toolError(e);
      }
    },
    async readResource(p) {
      const low = lowHandler("resources/read");
      if (low) return callLow(low, "resources/read", p);
      // As the SDK: the URI is looked up and matched as new URL(uri).href spells it.
      const url = new URL(String(p.uri));
      const uri = url.href;
      const fixed = server && (server._resources.get(uri) || server._resources.get(String(p.uri)));
      if (fixed && fixed.enabled) return fixed.handler(url, extra());
      if (server) {
        for (const r of server._templates.values()) {
          if (!r.enabled) continue;
          const vars = r.template.match(uri);
          if (vars) return r.handler(url, vars, extra());
        }
      }
      throw new McpError(-32002, "Resource " + p.uri + " not found");
    },
    async getPrompt(p) {
      const low = lowHandler("prompts/get");
      if (low) return callLow(low, "prompts/get", p);
      const pr = server && server._prompts.get(p.name);
      if (!pr || !pr.enabled) throw new McpError(ErrorCode.InvalidParams, "Prompt " + p.name + " not found");
      if (pr.config.argsSchema === undefined) return pr.handler(extra());
      const args = await parse(pr.config.argsSchema, p.arguments || {}, "Invalid arguments for prompt ", p.name);
      return pr.handler(args, extra());
    },
    async complete(p) {
      const low = lowHandler("completion/complete");
      if (low) return callLow(low, "completion/complete", p);
      const ref = p.ref || {};
      const arg = p.argument || {};
      const ctx = { arguments: (p.context && p.context.arguments) || {} };
      let fn;
      if (ref.type === "ref/resource" && server) {
        for (const r of server._templates.values()) if (r.template._uriTemplate === ref.uri) fn = r.template.completeCallback(arg.name);
      } else if (ref.type === "ref/prompt" && server) {
        const pr = server._prompts.get(ref.name);
        const z = pr && pr.config.argsSchema && pr.config.argsSchema[arg.name];
        fn = z && z._mcpwasmComplete;
      }
      const values = fn ? await fn(arg.value || "", ctx) : [];
      return { completion: { values: values.slice(0, 100), total: values.length, hasMore: values.length > 100 } };
    },
  };
  // The entry's AbortController: its signal (extra.signal) aborts when the host says the call
  // is ending (abort, below) — a cancellation, or its time limit near — a grace period before
  // the interrupt stops the script. Reading signal.aborted asks the host too, so a loop that
  // never awaits sees it.
  const endingReason = (why) =>
    why === "deadline"
      ? new DOMException("The operation timed out: the call's time limit is near", "TimeoutError")
      : new DOMException(why === "cancelled" ? "The operation was aborted: the client cancelled the request" : "The operation was aborted: the server is stopping the call", "AbortError");
  const entryController = () => {
    const c = new AbortController();
    const s = c.signal;
    let aborted = false, asking = false;
    Object.defineProperty(s, "aborted", {
      get() {
        if (!aborted && !asking) {
          asking = true;
          try {
            const why = host("ending");
            if (why) c.abort(endingReason(why));
          } finally {
            asking = false;
          }
        }
        return aborted;
      },
      set(v) {
        aborted = v;
      },
    });
    return c;
  };
  mcp.abort = (why) => {
    if (current && !current.abort.signal.aborted) current.abort.abort(endingReason(why));
    return "";
  };
  let slot = null; // the Entry poll answers for (an entry settling late settles its own)
  mcp.dispatch = (op, json) => {
    served = true; // the host has read the lists (describe is the first entry it runs)
    const fn = entries[op];
    const en = (slot = current = new Entry());
    try {
      if (!fn) throw new Error("unknown entry " + op);
      const v = fn(json ? JSON.parse(json) : {});
      if (isThenable(v))
        Promise.resolve(v).then(
          (r) => en.answer(r),
          (e) => en.fail(e),
        );
      else en.answer(v);
    } catch (e) {
      en.fail(e);
    }
    if (en.out === "") return "";
    slot = null; // settled at once: the answer now, no poll
    current = null;
    return en.out;
  };
  mcp.poll = () => {
    if (!slot) return "E" + JSON.stringify({ error: "no entry is running", code: ErrorCode.InternalError });
    if (slot.out !== "") {
      const out = slot.out;
      slot = null;
      current = null;
      return out;
    }
    if (fireTimer()) return "";
    slot = null;
    return "E" + JSON.stringify({ error: "the handler's promise never settled (no timer or request is pending)", code: ErrorCode.InternalError });
  };
})();

// node:stream for a mcpwasm guest: a small Readable, Writable, Duplex, Transform and
// PassThrough over EventEmitter (push/read, write/end, pipe, async iteration), and
// pipeline/finished — what stdio helpers and glob-like packages (minipass) touch. Flowing
// data moves on the job queue; there is no backpressure beyond highWaterMark's report.
import { EventEmitter } from "./events.js";

export class Stream extends EventEmitter {
  pipe(dest) {
    this.on("data", (c) => dest.write(c));
    this.on("end", () => (dest.end ? dest.end() : undefined));
    return dest;
  }
}
export class Readable extends Stream {
  constructor(opts = {}) {
    super();
    this._buf = [];
    this._ended = false;
    this._flowing = null;
    this.readable = true;
    this.destroyed = false;
    this.readableObjectMode = !!(opts.objectMode || opts.readableObjectMode);
    this._encoding = opts.encoding || null;
    if (typeof opts.read === "function") this._read = opts.read;
    if (typeof opts.destroy === "function") this._destroy = opts.destroy;
  }
  static from(iterable, opts) {
    const r = new Readable(Object.assign({ objectMode: true }, opts));
    (async () => {
      try {
        for await (const c of iterable) r.push(c);
        r.push(null);
      } catch (e) {
        r.destroy(e);
      }
    })();
    return r;
  }
  _read() {}
  push(chunk) {
    if (chunk === null) {
      this._ended = true;
      this._schedule();
      return false;
    }
    if (typeof chunk === "string" && !this.readableObjectMode) chunk = Buffer.from(chunk);
    this._buf.push(chunk);
    this._schedule();
    return true;
  }
  unshift(chunk) {
    this._buf.unshift(chunk);
  }
  _schedule() {
    if (this._flowing && !this._scheduled) {
      this._scheduled = true;
      queueMicrotask(() => {
        this._scheduled = false;
        this._flow();
      });
    } else if (this._flowing === null || this._flowing === false) {
      queueMicrotask(() => this.emit("readable"));
    }
  }
  _out(c) {
    return this._encoding && c instanceof Uint8Array ? Buffer.from(c).toString(this._encoding) : c;
  }
  _flow() {
    while (this._flowing && this._buf.length) this.emit("data", this._out(this._buf.shift()));
    if (this._flowing && this._ended && !this._buf.length && !this._endEmitted) {
      this._endEmitted = true;
      this.readable = false;
      this.emit("end");
      this.emit("close");
    } else if (this._flowing && !this._ended) this._read();
  }
  read() {
    if (!this._buf.length) {
      if (this._ended && !this._endEmitted) {
        this._endEmitted = true;
        queueMicrotask(() => this.emit("end"));
      } else this._read();
      return null;
    }
    return this._out(this._buf.shift());
  }
  on(name, fn) {
    super.on(name, fn);
    if (name === "data" && this._flowing !== false) this.resume();
    return this;
  }
  resume() {
    this._flowing = true;
    queueMicrotask(() => this._flow());
    return this;
  }
  pause() {
    this._flowing = false;
    return this;
  }
  isPaused() {
    return this._flowing === false;
  }
  setEncoding(enc) {
    this._encoding = enc;
    return this;
  }
  destroy(err) {
    if (this.destroyed) return this;
    this.destroyed = true;
    const done = (e) => {
      if (e) this.emit("error", e);
      this.emit("close");
    };
    if (this._destroy) this._destroy(err || null, done);
    else queueMicrotask(() => done(err));
    return this;
  }
  [Symbol.asyncIterator]() {
    const chunks = [];
    const waiting = [];
    let done = false, failed = null;
    const wake = () => {
      while (waiting.length && (chunks.length || done || failed)) {
        const w = waiting.shift();
        if (failed) w.reject(failed);
        else if (chunks.length) w.resolve({ value: chunks.shift(), done: false });
        else w.resolve({ value: undefined, done: true });
      }
    };
    this.on("data", (c) => (chunks.push(c), wake()));
    this.on("end", () => ((done = true), wake()));
    this.on("error", (e) => ((failed = e), wake()));
    return {
      next: () => new Promise((resolve, reject) => (waiting.push({ resolve, reject }), wake())),
      return: () => (this.destroy(), Promise.resolve({ value: undefined, done: true })),
      [Symbol.asyncIterator]() {
        return this;
      },
    };
  }
}
export class Writable extends Stream {
  constructor(opts = {}) {
    super();
    this.writable = true;
    this.destroyed = false;
    this.writableEnded = this.writableFinished = false;
    if (typeof opts.write === "function") this._write = opts.write;
    if (typeof opts.final === "function") this._final = opts.final;
  }
  _write(chunk, enc, cb) {
    cb();
  }
  write(chunk, enc, cb) {
    if (typeof enc === "function") (cb = enc), (enc = "utf8");
    this._write(chunk, enc || "utf8", (e) => {
      if (e) this.emit("error", e);
      if (cb) cb(e);
    });
    return true;
  }
  end(chunk, enc, cb) {
    if (typeof chunk === "function") (cb = chunk), (chunk = undefined);
    if (typeof enc === "function") (cb = enc), (enc = undefined);
    if (chunk !== undefined && chunk !== null) this.write(chunk, enc);
    this.writableEnded = true;
    const fin = () => {
      this.writableFinished = true;
      this.emit("finish");
      this.emit("close");
      if (cb) cb();
    };
    if (this._final) this._final((e) => (e ? this.emit("error", e) : fin()));
    else queueMicrotask(fin);
    return this;
  }
  destroy(err) {
    this.destroyed = true;
    queueMicrotask(() => {
      if (err) this.emit("error", err);
      this.emit("close");
    });
    return this;
  }
  cork() {}
  uncork() {}
  setDefaultEncoding() {
    return this;
  }
}
export class Duplex extends Readable {
  constructor(opts = {}) {
    super(opts);
    this.writable = true;
    this.writableEnded = false;
    if (typeof opts.write === "function") this._write = opts.write;
    if (typeof opts.final === "function") this._final = opts.final;
  }
}
for (const k of ["write", "end", "_write", "cork", "uncork", "setDefaultEncoding"]) Duplex.prototype[k] = Writable.prototype[k];
export class Transform extends Duplex {
  constructor(opts = {}) {
    super(opts);
    if (typeof opts.transform === "function") this._transform = opts.transform;
    if (typeof opts.flush === "function") this._flush = opts.flush;
  }
  _transform(chunk, enc, cb) {
    cb(null, chunk);
  }
  _write(chunk, enc, cb) {
    this._transform(chunk, enc, (e, out) => {
      if (out !== undefined && out !== null) this.push(out);
      cb(e);
    });
  }
  _final(cb) {
    const end = () => (this.push(null), cb());
    if (this._flush) this._flush((e, out) => (out !== undefined && out !== null && this.push(out), e ? cb(e) : end()));
    else end();
  }
}
export class PassThrough extends Transform {}
export function finished(stream, cb) {
  const done = (e) => cb && cb(e);
  stream.on("end", () => done());
  stream.on("finish", () => done());
  stream.on("error", done);
  return () => {};
}
export function pipeline(...streams) {
  const cb = typeof streams[streams.length - 1] === "function" ? streams.pop() : null;
  const p = new Promise((resolve, reject) => {
    for (let i = 0; i + 1 < streams.length; i++) streams[i].pipe(streams[i + 1]);
    for (const s of streams) s.on("error", reject);
    finished(streams[streams.length - 1], (e) => (e ? reject(e) : resolve()));
  });
  if (cb) p.then(() => cb(), cb);
  return p;
}
export const promises = { pipeline, finished: (s) => new Promise((resolve, reject) => finished(s, (e) => (e ? reject(e) : resolve()))) };
Stream.Readable = Readable;
Stream.Writable = Writable;
Stream.Duplex = Duplex;
Stream.Transform = Transform;
Stream.PassThrough = PassThrough;
Stream.Stream = Stream;
Stream.pipeline = pipeline;
Stream.finished = finished;
Stream.promises = promises;
export default Stream;

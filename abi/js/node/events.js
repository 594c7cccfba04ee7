// node:events for a mcpwasm guest: EventEmitter (on, once, off, emit, listeners, …) and once().
export class EventEmitter {
  constructor() {
    this._events = new Map();
    this._max = EventEmitter.defaultMaxListeners;
  }
  _list(name) {
    if (!this._events) this._events = new Map();
    let l = this._events.get(name);
    if (!l) this._events.set(name, (l = []));
    return l;
  }
  on(name, fn) {
    if (this._events && this._events.has("newListener")) this.emit("newListener", name, fn);
    this._list(name).push(fn);
    return this;
  }
  prependListener(name, fn) {
    this._list(name).unshift(fn);
    return this;
  }
  once(name, fn) {
    const w = (...a) => {
      this.off(name, w);
      return fn.apply(this, a);
    };
    w.listener = fn;
    return this.on(name, w);
  }
  prependOnceListener(name, fn) {
    const w = (...a) => {
      this.off(name, w);
      return fn.apply(this, a);
    };
    w.listener = fn;
    return this.prependListener(name, w);
  }
  off(name, fn) {
    const l = this._events && this._events.get(name);
    if (!l) return this;
    const i = l.findIndex((x) => x === fn || x.listener === fn);
    if (i >= 0) l.splice(i, 1);
    if (!l.length) this._events.delete(name);
    return this;
  }
  removeAllListeners(name) {
    if (!this._events) return this;
    if (name === undefined) this._events.clear();
    else this._events.delete(name);
    return this;
  }
  emit(name, ...args) {
    const l = this._events && this._events.get(name);
    if (!l || !l.length) {
      if (name === "error") throw args[0] instanceof Error ? args[0] : new Error("Unhandled error. (" + String(args[0]) + ")");
      return false;
    }
    for (const fn of l.slice()) fn.apply(this, args);
    return true;
  }
  listeners(name) {
    const l = this._events && this._events.get(name);
    return l ? l.map((f) => f.listener || f) : [];
  }
  rawListeners(name) {
    return ((this._events && this._events.get(name)) || []).slice();
  }
  listenerCount(name) {
    const l = this._events && this._events.get(name);
    return l ? l.length : 0;
  }
  eventNames() {
    return this._events ? [...this._events.keys()] : [];
  }
  setMaxListeners(n) {
    this._max = n;
    return this;
  }
  getMaxListeners() {
    return this._max;
  }
}
EventEmitter.prototype.addListener = EventEmitter.prototype.on;
EventEmitter.prototype.removeListener = EventEmitter.prototype.off;
EventEmitter.defaultMaxListeners = 10;
EventEmitter.EventEmitter = EventEmitter;
export const once = (emitter, name) =>
  new Promise((resolve, reject) => {
    if (typeof emitter.addEventListener === "function" && typeof emitter.on !== "function") {
      emitter.addEventListener(name, (e) => resolve([e]), { once: true });
      return;
    }
    const onErr = (e) => {
      emitter.off(name, onEv);
      reject(e);
    };
    const onEv = (...a) => {
      if (name !== "error") emitter.off("error", onErr);
      resolve(a);
    };
    emitter.once(name, onEv);
    if (name !== "error") emitter.once("error", onErr);
  });
EventEmitter.once = once;
export const setMaxListeners = () => {};
export const defaultMaxListeners = 10;
export const errorMonitor = Symbol("events.errorMonitor");
export const captureRejectionSymbol = Symbol.for("nodejs.rejection");
export default EventEmitter;

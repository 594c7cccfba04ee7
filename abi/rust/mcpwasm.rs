//! mcpwasm — the Rust guest SDK for the mcpwasm guest ABI v1 (abi/ABI.md). No dependencies.
//!
//! Add it to your crate root as a module and define `fn register()`, which the SDK calls once
//! per instance, before the first describe or call:
//!
//! ```ignore
//! #[path = "../../abi/rust/mcpwasm.rs"]
//! mod mcpwasm;
//!
//! fn register() {
//!     mcpwasm::set_info("hello", "1.0.0", "Greets");
//!     mcpwasm::add_tool("hello", "Greets someone",
//!         r#"{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}"#,
//!         |args| Ok(mcpwasm::Output::text(format!("hello, {}", args.str("name").unwrap_or_default()))));
//! }
//! ```
//!
//! and build a `cdylib` for `wasm32-wasi` (`wasm32-wasip1` on Rust ≥ 1.78) as a WASI reactor;
//! see guests/LANGUAGES.md for the exact command. The module defines the exports
//! `mcpwasm_abi_version`, `mcpwasm_alloc`, `mcpwasm_describe` and `mcpwasm_call`.
//!
//! A handler returns `Ok(Output)` for a result or `Err(message)` for a tool error (isError).
//! A panic traps (wasm targets abort on panic): the host reports it and replaces the instance.
//! Written for Rust 1.63 (Debian 12's rustc) and later, edition 2021.

#![allow(dead_code)]

use std::cell::RefCell;

/// The ABI major version (abi/ABI.md §9).
pub const ABI_VERSION: i32 = 1;

/// Status codes of the host imports (abi/ABI.md §6.2).
pub mod status {
    pub const OK: i32 = 0;
    pub const DENIED: i32 = 1;
    pub const NOT_FOUND: i32 = 2;
    pub const INVALID: i32 = 3;
    pub const TOO_LARGE: i32 = 4;
    pub const TIMEOUT: i32 = 5;
    pub const FAILED: i32 = 6;
    pub const CANCELLED: i32 = 7;
    pub const UNAVAILABLE: i32 = 8;
}

/// Log levels (RFC 5424, as MCP's LoggingLevel).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Level {
    Debug = 0,
    Info,
    Notice,
    Warning,
    Error,
    Critical,
    Alert,
    Emergency,
}

/// A tool handler: `Ok` is a result, `Err` a tool error whose text the model reads.
pub type Handler = fn(&Args) -> Result<Output, String>;

struct Tool {
    name: String,
    description: String,
    schema: String,
    handler: Handler,
    meta: String, // _meta JSON object, or empty
}

#[derive(Default)]
struct State {
    name: String,
    version: String,
    description: String,
    tools: Vec<Tool>,
    initialised: bool,
    manifest: Vec<u8>,
    input: Vec<u8>,  // the input region (§2.1)
    output: Vec<u8>, // the last returned region (§3)
}

thread_local! {
    static STATE: RefCell<State> = RefCell::new(State::default());
}

/// Sets the manifest's guest name (`^[a-zA-Z0-9_-]{1,64}$`), version and description.
pub fn set_info(name: &str, version: &str, description: &str) {
    STATE.with(|s| {
        let mut s = s.borrow_mut();
        s.name = name.to_string();
        s.version = version.to_string();
        s.description = description.to_string();
    });
}

/// Registers a tool. `input_schema` is a JSON Schema object whose "type" is "object".
pub fn add_tool(name: &str, description: &str, input_schema: &str, handler: Handler) {
    STATE.with(|s| {
        s.borrow_mut().tools.push(Tool {
            name: name.to_string(),
            description: description.to_string(),
            schema: input_schema.to_string(),
            handler,
            meta: String::new(),
        })
    });
}

/// Sets the `_meta` of the registered tool `name` to the JSON object `meta_json` (not checked:
/// the host refuses a guest whose tool `_meta` is not a JSON object, naming the tool). MCP
/// Apps names a tool's view so:
/// `{"ui":{"resourceUri":"ui://app/view.html"},"ui/resourceUri":"ui://app/view.html"}`
/// (abi/ABI.md §4). Returns false if no tool has that name.
pub fn set_tool_meta(name: &str, meta_json: &str) -> bool {
    STATE.with(|s| {
        let mut s = s.borrow_mut();
        match s.tools.iter_mut().find(|t| t.name == name) {
            Some(t) => {
                t.meta = meta_json.to_string();
                true
            }
            None => false,
        }
    })
}

// ---- Results (abi/ABI.md §5) -------------------------------------------------------------

/// A tool result under construction: content blocks and optional structured content.
#[derive(Default, Debug, Clone)]
pub struct Output {
    blocks: Vec<String>,        // encoded content blocks
    structured: Option<String>, // raw JSON
}

impl Output {
    /// A result holding one text block.
    pub fn text<S: AsRef<str>>(s: S) -> Output {
        Output::default().and_text(s)
    }

    /// A result whose structuredContent is the JSON object `json` (not checked: it must be
    /// valid and match the tool's outputSchema, if any), plus a text block holding the same
    /// JSON for clients that predate structured output.
    pub fn json<S: Into<String>>(json: S) -> Output {
        let json = json.into();
        let mut o = Output::text(&json);
        o.structured = Some(json);
        o
    }

    /// Appends a text block.
    pub fn and_text<S: AsRef<str>>(mut self, s: S) -> Output {
        self.blocks.push(format!("{{\"type\":\"text\",\"text\":{}}}", quote(s.as_ref())));
        self
    }

    fn encode(&self, is_error: bool) -> Vec<u8> {
        let mut out = String::from("{\"content\":[");
        out.push_str(&self.blocks.join(","));
        out.push(']');
        if let Some(s) = &self.structured {
            out.push_str(",\"structuredContent\":");
            out.push_str(s);
        }
        if is_error {
            out.push_str(",\"isError\":true");
        }
        out.push('}');
        out.into_bytes()
    }
}

/// Returns s as a quoted JSON string literal.
pub fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

// ---- Arguments: a small, bounded JSON reader for flat objects -------------------------------

/// The arguments of one call: the JSON object the host validated against the input schema.
pub struct Args<'a> {
    json: &'a [u8],
}

impl<'a> Args<'a> {
    /// Wraps raw JSON (for unit tests of handlers).
    pub fn new(json: &'a str) -> Args<'a> {
        Args { json: json.as_bytes() }
    }

    /// The raw JSON object.
    pub fn raw(&self) -> &'a [u8] {
        self.json
    }

    /// The string value of top-level `key`, or None if it is missing or not a string.
    pub fn str(&self, key: &str) -> Option<String> {
        let mut i = find(self.json, key)?;
        let mut out = Vec::new();
        if self.json[i] != b'"' {
            return None;
        }
        read_string(self.json, &mut i, Some(&mut out))?;
        String::from_utf8(out).ok()
    }

    /// The number value of top-level `key`.
    pub fn num(&self, key: &str) -> Option<f64> {
        let i = find(self.json, key)?;
        let s = self.json;
        if s[i] != b'-' && !s[i].is_ascii_digit() {
            return None;
        }
        let end = (i..s.len()).find(|&k| !b"+-.eE0123456789".contains(&s[k])).unwrap_or(s.len());
        std::str::from_utf8(&s[i..end]).ok()?.parse().ok()
    }

    /// The value of top-level `key` if it is a number with no fraction that fits i64.
    pub fn int(&self, key: &str) -> Option<i64> {
        let d = self.num(key)?;
        if d >= -9223372036854775808.0 && d < 9223372036854775808.0 && d == (d as i64) as f64 {
            Some(d as i64)
        } else {
            None
        }
    }

    /// The boolean value of top-level `key`.
    pub fn bool(&self, key: &str) -> Option<bool> {
        let i = find(self.json, key)?;
        let s = &self.json[i..];
        if s.starts_with(b"true") {
            Some(true)
        } else if s.starts_with(b"false") {
            Some(false)
        } else {
            None
        }
    }
}

fn skip_ws(s: &[u8], mut i: usize) -> usize {
    while i < s.len() && matches!(s[i], b' ' | b'\t' | b'\n' | b'\r') {
        i += 1;
    }
    i
}

fn hex4(s: &[u8], i: usize) -> Option<u32> {
    let h = s.get(i..i + 4)?;
    u32::from_str_radix(std::str::from_utf8(h).ok()?, 16).ok().filter(|_| h.iter().all(|c| c.is_ascii_hexdigit()))
}

/// Reads the string starting at s[*i] == '"', decoding it into out if given; leaves *i just
/// past the closing quote.
fn read_string(s: &[u8], i: &mut usize, mut out: Option<&mut Vec<u8>>) -> Option<()> {
    let mut j = *i + 1;
    loop {
        let c = *s.get(j)?;
        match c {
            b'"' => break,
            0..=0x1f => return None,
            b'\\' => {
                let e = *s.get(j + 1)?;
                j += 2;
                let ch = match e {
                    b'"' => '"',
                    b'\\' => '\\',
                    b'/' => '/',
                    b'b' => '\u{8}',
                    b'f' => '\u{c}',
                    b'n' => '\n',
                    b'r' => '\r',
                    b't' => '\t',
                    b'u' => {
                        let mut cp = hex4(s, j)?;
                        j += 4;
                        if (0xD800..0xDC00).contains(&cp) && s.get(j) == Some(&b'\\') && s.get(j + 1) == Some(&b'u') {
                            if let Some(lo) = hex4(s, j + 2).filter(|lo| (0xDC00..0xE000).contains(lo)) {
                                cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                                j += 6;
                            }
                        }
                        char::from_u32(cp).unwrap_or('\u{FFFD}') // a lone surrogate, as Go decodes it
                    }
                    _ => return None,
                };
                if let Some(o) = out.as_mut() {
                    let mut b = [0u8; 4];
                    o.extend_from_slice(ch.encode_utf8(&mut b).as_bytes());
                }
            }
            _ => {
                if let Some(o) = out.as_mut() {
                    o.push(c);
                }
                j += 1;
            }
        }
    }
    *i = j + 1;
    Some(())
}

/// Skips one value starting at s[*i]; iterative, so nesting depth costs nothing.
fn skip_value(s: &[u8], i: &mut usize) -> Option<()> {
    let mut j = *i;
    let mut depth = 0usize;
    loop {
        let c = *s.get(j)?;
        match c {
            b'"' => {
                read_string(s, &mut j, None)?;
                if depth == 0 {
                    break;
                }
                continue;
            }
            b'{' | b'[' => depth += 1,
            b'}' | b']' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    j += 1;
                    break;
                }
            }
            _ if depth == 0 => {
                let start = j;
                while j < s.len() && !b",}] \t\r\n".contains(&s[j]) {
                    j += 1;
                }
                if j == start {
                    return None;
                }
                break;
            }
            _ => {}
        }
        j += 1;
    }
    *i = j;
    Some(())
}

/// Finds the value of top-level `key`; the last of duplicate keys wins, as with Go's
/// encoding/json.
fn find(s: &[u8], key: &str) -> Option<usize> {
    let mut i = skip_ws(s, 0);
    if s.get(i) != Some(&b'{') {
        return None;
    }
    i = skip_ws(s, i + 1);
    if s.get(i) == Some(&b'}') {
        return None;
    }
    let mut found = None;
    let mut k = Vec::new();
    loop {
        if s.get(i) != Some(&b'"') {
            return None;
        }
        k.clear();
        read_string(s, &mut i, Some(&mut k))?;
        i = skip_ws(s, i);
        if s.get(i) != Some(&b':') {
            return None;
        }
        i = skip_ws(s, i + 1);
        if k == key.as_bytes() && i < s.len() {
            found = Some(i);
        }
        skip_value(s, &mut i)?;
        i = skip_ws(s, i);
        match s.get(i) {
            Some(b'}') => return found,
            Some(b',') => i = skip_ws(s, i + 1),
            _ => return None,
        }
    }
}

// ---- Host imports (abi/ABI.md §6) --------------------------------------------------------

#[cfg(target_arch = "wasm32")]
mod host {
    #[link(wasm_import_module = "mcpwasm_v1")]
    extern "C" {
        #[link_name = "log"]
        pub fn log(level: i32, msg: *const u8, len: u32) -> i32;
        #[link_name = "progress"]
        pub fn progress(progress: f64, total: f64, msg: *const u8, len: u32) -> i32;
        #[link_name = "cancelled"]
        pub fn cancelled() -> i32;
        #[link_name = "request"]
        pub fn request(kind: *const u8, kind_len: u32, req: *const u8, req_len: u32) -> u64;
        #[link_name = "response"]
        pub fn response(buf: *mut u8, len: u32) -> i32;
    }
}

// Outside wasm (unit tests of handlers) the imports behave as if no host were present.
#[cfg(not(target_arch = "wasm32"))]
mod host {
    pub unsafe fn log(_: i32, _: *const u8, _: u32) -> i32 {
        super::status::OK
    }
    pub unsafe fn progress(_: f64, _: f64, _: *const u8, _: u32) -> i32 {
        super::status::OK
    }
    pub unsafe fn cancelled() -> i32 {
        0
    }
    pub unsafe fn request(_: *const u8, _: u32, _: *const u8, _: u32) -> u64 {
        (super::status::UNAVAILABLE as u64) << 32
    }
    pub unsafe fn response(_: *mut u8, _: u32) -> i32 {
        -super::status::UNAVAILABLE
    }
}

/// Logs msg at level (to the host log and, if the client asked, to the client).
pub fn log(level: Level, msg: &str) -> i32 {
    unsafe { host::log(level as i32, msg.as_ptr(), msg.len() as u32) }
}

/// Reports progress of the current call; total <= 0 means unknown.
pub fn progress(progress: f64, total: f64, msg: &str) -> i32 {
    unsafe { host::progress(progress, total, msg.as_ptr(), msg.len() as u32) }
}

/// Whether the current call was cancelled or is near its time limit.
pub fn cancelled() -> bool {
    unsafe { host::cancelled() == 1 }
}

/// Performs a capability request (abi/ABI.md §6.1). Ok holds the response JSON; Err holds
/// the non-OK status and the response (`{"error": "…"}`).
pub fn request(kind: &str, req: &[u8]) -> Result<Vec<u8>, (i32, Vec<u8>)> {
    let r = unsafe { host::request(kind.as_ptr(), kind.len() as u32, req.as_ptr(), req.len() as u32) };
    let (st, n) = ((r >> 32) as i32, r as u32);
    let mut buf = vec![0u8; n as usize];
    if n > 0 {
        let got = unsafe { host::response(buf.as_mut_ptr(), n) };
        if got < 0 {
            return Err((-got, Vec::new()));
        }
        buf.truncate(got as usize);
    }
    if st == status::OK {
        Ok(buf)
    } else {
        Err((st, buf))
    }
}

/// Asks the client of the current call to sample its model (request kind `sampling`, needs
/// the sampling grant; abi/ABI.md §6.7) with one user message of text `prompt` and at most
/// `max_tokens` tokens in the answer. Ok holds the CreateMessageResult JSON
/// (`{"role":"assistant","content":{"type":"text","text":…},"model":…}`); Err as for `request`.
pub fn sample(prompt: &str, max_tokens: u32) -> Result<Vec<u8>, (i32, Vec<u8>)> {
    let req = format!(
        "{{\"messages\":[{{\"role\":\"user\",\"content\":{{\"type\":\"text\",\"text\":{}}}}}],\"maxTokens\":{}}}",
        quote(prompt),
        max_tokens
    );
    request("sampling", req.as_bytes())
}

/// Asks the user through the client of the current call (request kind `elicitation`, needs
/// the elicitation grant) with `message` and `requested_schema` (a JSON Schema object, or
/// None). Ok holds the ElicitResult JSON (`{"action":"accept","content":…}`; decline and
/// cancel are Ok too); Err as for `request`.
pub fn elicit(message: &str, requested_schema: Option<&str>) -> Result<Vec<u8>, (i32, Vec<u8>)> {
    let mut req = format!("{{\"message\":{}", quote(message));
    if let Some(s) = requested_schema {
        req.push_str(",\"requestedSchema\":");
        req.push_str(s);
    }
    req.push('}');
    request("elicitation", req.as_bytes())
}

// ---- Exports (abi/ABI.md §2) -------------------------------------------------------------

fn ensure_init() {
    let first = STATE.with(|s| !std::mem::replace(&mut s.borrow_mut().initialised, true));
    if first {
        crate::register();
    }
}

fn pack(p: *const u8, n: usize) -> u64 {
    (p as usize as u64) << 32 | n as u32 as u64
}

fn opt_field(out: &mut String, key: &str, val: &str) {
    if !val.is_empty() {
        out.push_str(&format!(",\"{}\":{}", key, quote(val)));
    }
}

#[no_mangle]
pub extern "C" fn mcpwasm_abi_version() -> i32 {
    ABI_VERSION
}

#[no_mangle]
pub extern "C" fn mcpwasm_alloc(size: i32) -> *mut u8 {
    if size < 0 {
        return std::ptr::null_mut();
    }
    STATE.with(|s| {
        let mut s = s.borrow_mut();
        s.input = vec![0u8; size.max(1) as usize];
        s.input.as_mut_ptr()
    })
}

#[no_mangle]
pub extern "C" fn mcpwasm_describe() -> u64 {
    ensure_init();
    STATE.with(|s| {
        let mut s = s.borrow_mut();
        if s.manifest.is_empty() {
            let mut m = format!("{{\"name\":{}", quote(&s.name));
            opt_field(&mut m, "version", &s.version);
            opt_field(&mut m, "description", &s.description);
            m.push_str(",\"tools\":[");
            for (i, t) in s.tools.iter().enumerate() {
                if i > 0 {
                    m.push(',');
                }
                m.push_str(&format!("{{\"name\":{}", quote(&t.name)));
                opt_field(&mut m, "description", &t.description);
                m.push_str(",\"inputSchema\":");
                m.push_str(&t.schema);
                if !t.meta.is_empty() {
                    m.push_str(",\"_meta\":");
                    m.push_str(&t.meta);
                }
                m.push('}');
            }
            m.push_str("]}");
            s.manifest = m.into_bytes();
        }
        pack(s.manifest.as_ptr(), s.manifest.len())
    })
}

/// # Safety
/// Called by the host only, with regions inside the input buffer it got from mcpwasm_alloc.
#[no_mangle]
pub unsafe extern "C" fn mcpwasm_call(name: *const u8, name_len: u32, args: *const u8, args_len: u32) -> u64 {
    ensure_init();
    let name = std::slice::from_raw_parts(name, name_len as usize);
    let args = std::slice::from_raw_parts(args, args_len as usize);
    let handler = STATE.with(|s| s.borrow().tools.iter().find(|t| t.name.as_bytes() == name).map(|t| t.handler));
    let out = match handler {
        Some(h) => match h(&Args { json: args }) {
            Ok(o) => o.encode(false),
            Err(msg) => Output::text(msg).encode(true),
        },
        None => Output::text(format!("unknown tool {}", quote(&String::from_utf8_lossy(name)))).encode(true),
    };
    STATE.with(|s| {
        let mut s = s.borrow_mut();
        s.output = out;
        pack(s.output.as_ptr(), s.output.len())
    })
}

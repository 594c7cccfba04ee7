//! rtext — an mcpwasm guest in Rust on the dependency-free SDK in abi/rust/mcpwasm.rs.
//!
//! Build (from the repo root; guests/build-native.sh does this, and picks the linker):
//!
//!     rustc --edition 2021 --target wasm32-wasi --crate-type cdylib -O -C panic=abort \
//!         -C strip=symbols -C linker=wasm-ld-16 \
//!         -C link-arg=$(rustc --print sysroot)/lib/rustlib/wasm32-wasi/lib/self-contained/crt1-reactor.o \
//!         -C link-arg=--export=_initialize -o rtext.wasm guests/rust/rtext.rs

#[path = "../../abi/rust/mcpwasm.rs"]
mod mcpwasm;

use mcpwasm::Output;

/// Called once per instance by the SDK.
fn register() {
    mcpwasm::set_info("rtext", "1.0.0", "Text tools written in Rust");
    mcpwasm::add_tool(
        "slugify",
        "Turns text into a lower-case URL slug: letters and digits joined by single hyphens.",
        r#"{"type":"object","properties":{"text":{"type":"string"}},"required":["text"],"additionalProperties":false}"#,
        slugify,
    );
    mcpwasm::add_tool(
        "roman",
        "Writes an integer from 1 to 3999 in Roman numerals.",
        r#"{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}"#,
        roman,
    );
    // A tool's _meta reaches clients in tools/list (abi/ABI.md §4).
    mcpwasm::set_tool_meta("roman", r#"{"com.example/origin":"rtext"}"#);
}

fn slugify(args: &mcpwasm::Args) -> Result<Output, String> {
    let text = args.str("text").ok_or("text: want a string")?;
    let mut slug = String::new();
    for word in text.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()) {
        if !slug.is_empty() {
            slug.push('-');
        }
        slug.extend(word.chars().flat_map(char::to_lowercase));
    }
    if slug.is_empty() {
        return Err(format!("{} has no letters or digits to make a slug of", mcpwasm::quote(&text)));
    }
    Ok(Output::text(slug))
}

fn roman(args: &mcpwasm::Args) -> Result<Output, String> {
    let n = args.int("n").ok_or("n: want an integer")?;
    if !(1..=3999).contains(&n) {
        return Err(format!("{} has no Roman numeral: want 1 to 3999", n));
    }
    const DIGITS: [(i64, &str); 13] = [
        (1000, "M"), (900, "CM"), (500, "D"), (400, "CD"), (100, "C"), (90, "XC"),
        (50, "L"), (40, "XL"), (10, "X"), (9, "IX"), (5, "V"), (4, "IV"), (1, "I"),
    ];
    let (mut n, mut out) = (n, String::new());
    for &(v, s) in DIGITS.iter() {
        while n >= v {
            out.push_str(s);
            n -= v;
        }
    }
    Ok(Output::json(format!("{{\"n\":{},\"roman\":{}}}", args.int("n").unwrap_or(0), mcpwasm::quote(&out))))
}

#!/usr/bin/env bash
# Builds the C, Rust and WAT example guests (guests/c, guests/rust, guests/wat) into OUT_DIR
# (default guests/out): OUT_DIR/ctext.wasm, rtext.wasm, argsize.wasm. Their .wasm files are
# not committed;
# guests/languages_test.go builds them with this script. Toolchains: .ci/install-toolchains.sh
# (Debian 12: clang-16, lld-16, wasi-libc, libclang-rt-16-dev-wasm32, rustc,
# libstd-rust-dev-wasm32, wabt).
#
#   guests/build-native.sh [OUT_DIR] [c|rust|wat]...     # default: all three
#
# Overrides: CC (a clang that targets wasm32-wasi), RUSTC (a rustc with a wasm32-wasip1 or
# wasm32-wasi standard library), RUST_LINKER (wasm-ld, when the rustc lacks rust-lld).
# Exits 3 when a needed toolchain is missing, naming it.
set -euo pipefail
cd "$(dirname "$0")/.."

out=${1:-guests/out}
shift || true
langs=("$@")
[ ${#langs[@]} -gt 0 ] || langs=(c rust wat)
mkdir -p "$out"

missing() { echo "build-native.sh: $*" >&2; exit 3; }

first_cmd() { for c in "$@"; do if command -v "$c" >/dev/null 2>&1; then command -v "$c"; return 0; fi; done; return 1; }

build_c() {
	local cc=${CC:-}
	[ -n "$cc" ] || cc=$(first_cmd clang-16 clang clang-19 clang-14) ||
		missing "no clang for the C guest (apt-get install clang-16 lld-16 wasi-libc libclang-rt-16-dev-wasm32)"
	# A WASI reactor: wasi-libc's crt1-reactor.o exports _initialize (which runs constructors),
	# and the SDK's export_name attributes export the mcpwasm_* functions.
	"$cc" --target=wasm32-wasi -mexec-model=reactor -Os -Wall -Wextra -Wno-unused-parameter \
		-Iabi/c -Wl,--strip-all -o "$out/ctext.wasm" abi/c/mcpwasm.c guests/c/ctext.c
}

# rust_target prints the wasm32 WASI target whose standard library $1 has, or fails.
rust_target() {
	local sr
	sr=$("$1" --print sysroot 2>/dev/null) || return 1
	for t in wasm32-wasip1 wasm32-wasi; do
		if [ -d "$sr/lib/rustlib/$t/lib" ]; then echo "$t"; return 0; fi
	done
	return 1
}

build_rust() {
	local rustc=${RUSTC:-} target=""
	if [ -z "$rustc" ]; then
		# rustup's rustc usually lacks the wasm target offline; Debian's /usr/bin/rustc has it
		# with libstd-rust-dev-wasm32.
		for r in "$(command -v rustc || true)" /usr/bin/rustc; do
			if [ -n "$r" ] && [ -x "$r" ] && target=$(rust_target "$r"); then rustc=$r; break; fi
		done
		[ -n "$rustc" ] || missing "no rustc with a wasm32-wasip1/wasm32-wasi standard library (apt-get install rustc libstd-rust-dev-wasm32 lld-16)"
	else
		target=$(rust_target "$rustc") || missing "$rustc has no wasm32-wasip1/wasm32-wasi standard library"
	fi
	local sr host linker_args=()
	sr=$("$rustc" --print sysroot)
	host=$("$rustc" -vV | sed -n 's/^host: //p')
	if [ -n "${RUST_LINKER:-}" ]; then
		linker_args=(-C "linker=$RUST_LINKER")
	elif [ ! -x "$sr/lib/rustlib/$host/bin/rust-lld" ]; then
		# Debian's rustc ships no rust-lld: link with LLVM's wasm-ld.
		local ld
		ld=$(first_cmd wasm-ld-16 wasm-ld wasm-ld-19 wasm-ld-14) || missing "no wasm-ld to link the Rust guest (apt-get install lld-16)"
		linker_args=(-C "linker=$ld")
	fi
	# A reactor: stable rustc has no -Z wasi-exec-model=reactor, so link the reactor start file
	# the target ships and export its _initialize. Without it wasm-ld wraps every export in
	# constructor/destructor calls (the "command" model).
	"$rustc" --edition 2021 --target "$target" --crate-type cdylib \
		-C opt-level=s -C lto -C codegen-units=1 -C panic=abort -C strip=symbols \
		"${linker_args[@]}" \
		-C "link-arg=$sr/lib/rustlib/$target/lib/self-contained/crt1-reactor.o" \
		-C link-arg=--export=_initialize \
		-o "$out/rtext.wasm" guests/rust/rtext.rs
}

build_wat() {
	local w
	w=$(first_cmd wat2wasm) || missing "no wat2wasm for the WAT guest (apt-get install wabt)"
	"$w" guests/wat/argsize.wat -o "$out/argsize.wasm"
}

for l in "${langs[@]}"; do
	case $l in
	c) build_c ;;
	rust) build_rust ;;
	wat) build_wat ;;
	*) echo "build-native.sh: unknown language $l (want c, rust or wat)" >&2; exit 2 ;;
	esac
done

#!/usr/bin/env bash
# Installs the Debian 12 packages the guest toolchains need, skipping those already present
# (idempotent; needs root):
#   wabt                                    wat2wasm, for testdata/wat (hand-written WAT guests)
#   clang-16 lld-16 wasi-libc               C guests for wasm32-wasi (guests/c, abi/c)
#   libclang-rt-16-dev-wasm32               compiler-rt builtins for wasm32
#   rustc libstd-rust-dev-wasm32            Rust guests for wasm32-wasi (guests/rust, abi/rust);
#                                           linked with lld-16's wasm-ld
#   zsh fish                                the completion scripts run in their shells
#                                           (cmd/mcpwasm TestCompletionZshFish)
# guests/build-native.sh builds the C and Rust guests with them.
set -euo pipefail

pkgs=(wabt clang-16 lld-16 wasi-libc libclang-rt-16-dev-wasm32 rustc libstd-rust-dev-wasm32 zsh fish)

need=()
for p in "${pkgs[@]}"; do
	if [ "$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null)" != "install ok installed" ]; then
		need+=("$p")
	fi
done
if [ ${#need[@]} -eq 0 ]; then
	echo "install-toolchains.sh: all present: ${pkgs[*]}"
	exit 0
fi
echo "install-toolchains.sh: installing ${need[*]}"
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null

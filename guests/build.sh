#!/usr/bin/env bash
# Rebuilds the default guests embedded by bundle.go. Run after changing guests/calc,
# guests/text or abi/guest; TestBundledCurrent fails while a committed .wasm is stale.
set -euo pipefail
cd "$(dirname "$0")/.."
GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -trimpath -ldflags="-s -w" -o guests/calc.wasm ./guests/calc
GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -trimpath -ldflags="-s -w" -o guests/text.wasm ./guests/text

#!/usr/bin/env bash
# Rebuilds the default guests embedded by bundle.go. Run after changing guests/calc,
# guests/text or abi/guest; TestBundledCurrent fails while a committed .wasm is stale.
# First it regenerates each guest's schemas_gen.go (the tools' JSON Schemas, inferred from
# their Go types at build time so the modules need not link jsonschema-go); the test
# TestGeneratedCurrent in abi/guest/schemagen fails while one is stale.
set -euo pipefail
cd "$(dirname "$0")/.."
go generate ./guests/calc ./guests/text
GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -trimpath -ldflags="-s -w" -o guests/calc.wasm ./guests/calc
GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -trimpath -ldflags="-s -w" -o guests/text.wasm ./guests/text

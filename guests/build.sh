#!/usr/bin/env bash
# Rebuilds the default guests embedded by bundle.go. Run after changing guests/calc,
# guests/text or abi/guest; TestBundledCurrent fails while a committed .wasm is stale.
# First it regenerates each guest's schemas_gen.go (the tools' JSON Schemas, inferred from
# their Go types at build time so the modules need not link jsonschema-go); the test
# TestGeneratedCurrent in abi/guest/schemagen fails while one is stale.
# Both are built with -tags mcpwasm_nojson: their tools' types are flat structs, or results
# that encode themselves (text's regex_match and json_query), so the SDK needs no
# encoding/json (or fmt) code for them, about a fifth of a module (abi/guest, AddTool).
# -buildvcs=false: Go stamps a build inside a git checkout with the commit (its default
# -buildvcs=auto), so the bytes would change with every commit and TestBundledCurrent could
# never agree with the committed module; the guests carry no version of their own.
# guests/bundle_test.go's buildGuest uses the same flags.
set -euo pipefail
cd "$(dirname "$0")/.."
go generate ./guests/calc ./guests/text
GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -buildvcs=false -trimpath -ldflags="-s -w" -tags mcpwasm_nojson -o guests/calc.wasm ./guests/calc
GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -buildvcs=false -trimpath -ldflags="-s -w" -tags mcpwasm_nojson -o guests/text.wasm ./guests/text

#!/usr/bin/env bash
# Builds the example guests that need operator grants and are not served by default:
# fetch (net), git (exec), files (fs), upstream (mcp), llm (net, env, clock) and ask
# (sampling, elicitation, roots). They are not
# embedded; point a config's guest entries at the built modules and grant what each guest's
# package comment documents (examples/llm has configs for llm).
#
#   guests/granted.sh [outdir]    # default guests/out
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-guests/out}"
mkdir -p "$out"
for name in fetch git files upstream llm ask; do
	GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -trimpath -ldflags="-s -w" -o "$out/$name.wasm" "./guests/$name"
done

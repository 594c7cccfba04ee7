#!/usr/bin/env bash
# Spawn → first answered call of a published npm MCP server (issue #40's bench), mcpwasm beside
# the same package under Node, with the TypeScript SDK client over stdio:
#   bash bench/npmstart/run.sh [RUNS] [CALLS]          # default 7 runs, 300 calls
#   MCPWASM_OLD=/path/to/older/mcpwasm bash bench/npmstart/run.sh   # old and new, interleaved
# It builds mcpwasm from this checkout (or uses $MCPWASM), builds
# @modelcontextprotocol/server-filesystem from testdata/npm-servers (installed by .ci/run) with
# `mcpwasm build`, serves it with the allowed directory as its argument and an fs grant for it,
# warms the compile and manifest cache with one run, then times RUNS fresh processes (each:
# spawn → initialize answered → first `list_allowed_directories` answered) and CALLS calls in
# the last one. Node runs the package's own dist/index.js with the same directory. It prints
# the build time, the .wasm size, and the median and range of each figure. Timings are this
# machine's at this moment: the load average is printed beside them.
set -euo pipefail
cd "$(dirname "$0")/../.."
runs=${1:-7}
calls=${2:-300}
pkg=testdata/npm-servers/node_modules/@modelcontextprotocol/server-filesystem
modules=$PWD/testdata/interop/node_modules
for d in "$pkg" "$modules/@modelcontextprotocol/sdk" guests/typescript/node_modules; do
  [ -e "$d" ] || { echo "npmstart: $d is missing (npm ci in its directory, as .ci/run does)" >&2; exit 1; }
done
work=$(mktemp -d "${TMPDIR:-/tmp}/mcpwasm-npmstart.XXXXXX")
trap 'rm -rf "$work"' EXIT
bin=${MCPWASM:-}
if [ -z "$bin" ]; then
  bin=$work/mcpwasm
  GOFLAGS=${GOFLAGS:--buildvcs=auto} go build -o "$bin" ./cmd/mcpwasm
fi
pkg=$(realpath "$pkg") # a symlinked node_modules (a worktree's) hides the package's requests from the build
s=$(date +%s%N)
"$bin" build "$pkg" --toolchain guests/typescript -o "$work/fs.wasm" >/dev/null
e=$(date +%s%N)
mkdir -p "$work/data"
printf 'allowed' >"$work/data/a.txt"
cat >"$work/mcpwasm.json" <<JSON
{"guests": [{"path": "$work/fs.wasm", "args": ["/data"], "grants": {"fs": [{"host": "$work/data", "guest": "/data"}]}}]}
JSON
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) CPUs"
echo "build: $(( (e - s) / 1000000 )) ms; fs.wasm $(stat -c %s "$work/fs.wasm") B"
client() { MCPWASM_INTEROP_MODULES=$modules node bench/npmstart/client.mjs "$@"; }
serve() { echo "$1" serve --config "$work/mcpwasm.json" --cache-dir "$work/cache-$2"; }
summary() { # NAME JSON
  node -e '
    const [name, j] = process.argv.slice(1); const r = JSON.parse(j);
    const f = (a) => { const s = [...a].sort((x, y) => x - y); const m = s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
      return `${m.toFixed(1)} (${s[0].toFixed(1)}–${s[s.length - 1].toFixed(1)})`; };
    console.log(`| ${name} | ${f(r.total)} | ${f(r.initialize)} | ${f(r.first)} | ${r.callsPerSec || "—"} |`);' "$1" "$2"
}
# warm each binary's cache (compile and manifest) with one run
client 1 0 list_allowed_directories '{}' -- $(serve "$bin" new) >/dev/null
[ -n "${MCPWASM_OLD:-}" ] && client 1 0 list_allowed_directories '{}' -- $(serve "$MCPWASM_OLD" old) >/dev/null
new=() old=()
for i in $(seq "$runs"); do # interleaved: one process each per round
  c=0; [ "$i" = "$runs" ] && c=$calls
  new+=("$(client 1 "$c" list_allowed_directories '{}' -- $(serve "$bin" new))")
  if [ -n "${MCPWASM_OLD:-}" ]; then old+=("$(client 1 "$c" list_allowed_directories '{}' -- $(serve "$MCPWASM_OLD" old))"); fi
done
node_r=$(client "$runs" "$calls" list_allowed_directories '{}' -- node "$pkg/dist/index.js" "$work/data")
merge() { node -e 'const rs = process.argv.slice(1).map((s) => JSON.parse(s)); const o = { initialize: [], first: [], total: [], callsPerSec: 0 };
  for (const r of rs) { o.initialize.push(...r.initialize); o.first.push(...r.first); o.total.push(...r.total); o.callsPerSec ||= r.callsPerSec; }
  console.log(JSON.stringify(o));' "$@"; }
echo
echo "ms, median (range) of $runs runs; warm cache; calls/s: $calls sequential calls in the last run"
echo
echo "| server | spawn → first answered call | spawn → initialize answered | initialize → first call answered | calls/s |"
echo "|---|---|---|---|---|"
summary "mcpwasm" "$(merge "${new[@]}")"
[ -n "${MCPWASM_OLD:-}" ] && summary "mcpwasm (old: \$MCPWASM_OLD)" "$(merge "${old[@]}")"
summary "node $(node --version)" "$node_r"
# The server's own CPU (user + sys) for a whole life of spawn → initialize → first call → exit:
# steadier than wall time on a busy machine, and what a start costs the machine.
if [ -x /usr/bin/time ]; then
  cpu() { # BIN NAME
    local f=$work/cpu-$2 ms=()
    for i in $(seq "$runs"); do
      client 1 0 list_allowed_directories '{}' -- /usr/bin/time -f '%U %S' -a -o "$f" $(serve "$1" "$2") >/dev/null
    done
    node -e 'const a = require("fs").readFileSync(process.argv[1], "utf8").trim().split("\n").map((l) => l.split(" ").reduce((s, x) => s + 1000 * Number(x), 0)).sort((x, y) => x - y);
      console.log(`| ${process.argv[2]} | ${a[(a.length - 1) >> 1].toFixed(0)} (${a[0].toFixed(0)}–${a[a.length - 1].toFixed(0)}) |`);' "$f" "$2"
  }
  echo
  echo "mcpwasm serve's CPU, user + sys ms from spawn to exit after the first call (median (range) of $runs; 10 ms ticks)"
  echo
  echo "| server | CPU ms |"
  echo "|---|---|"
  cpu "$bin" new
  [ -n "${MCPWASM_OLD:-}" ] && cpu "$MCPWASM_OLD" old
fi
echo
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"

#!/usr/bin/env bash
# CI smoke run of the benchmarks: builds the driver and runs its quick mode (< 60 s), which
# builds mcpwasm, the native server and the Go guests and prints every table. It checks that
# the driver runs and succeeds (a case that errs, or an echo that does not return its input,
# fails the driver), that it prints every table, and that every row holds a plausible figure
# (no zero time, NaN or Inf), never how fast (CI machines vary too much).
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$(mktemp -d "${TMPDIR:-/tmp}/mcpwasm-bench-quick.XXXXXX")
trap 'rm -rf "$bin"' EXIT
(cd bench && go build -o "$bin/mcpwasm-bench" ./cmd/mcpwasm-bench)   # bench is a module of its own
if ! out=$("$bin/mcpwasm-bench" -quick); then
  printf '%s\n' "$out"
  echo "bench/quick.sh: the benchmark driver failed (its error is above the tables)" >&2
  exit 1
fi
printf '%s\n' "$out"
for section in "## 1. ABI round trip" "### 1c. Instance level" "## 2. End-to-end" "### Over Streamable HTTP" \
  "## 4. Scaling" "## 3. Cold start" "## 5. Memory" "## 8. First tools/list" "## 9. JavaScript guests" "## 7. Soak"; do
  if ! grep -qF "$section" <<<"$out"; then
    echo "bench/quick.sh: the output lacks section \"$section\"" >&2
    exit 1
  fi
done
if bad=$(grep -E '^\| ' <<<"$out" | grep -E '\| 0 ns \||NaN|Inf|\| 0\.0 MB \|'); then
  printf 'bench/quick.sh: rows without a plausible figure:\n%s\n' "$bad" >&2
  exit 1
fi
echo "bench/quick.sh: ok"

#!/usr/bin/env bash
# Runs every Go native fuzz target (func FuzzX in a _test.go file) briefly, one at a time:
# the stdio framing (FuzzReadLine), config parsing (FuzzParse), manifest decoding
# (FuzzManifest), result decoding (FuzzDecodeToolResult), argument validation
# (FuzzValidateArgs) and whatever is added later. FUZZTIME (default 10s) per target.
# A failure leaves the failing input under the package's testdata/fuzz/FuzzX/ (commit it as a
# regression case) and exits non-zero.
set -euo pipefail
cd "$(dirname "$0")/.."
FUZZTIME=${FUZZTIME:-10s}
status=0
while IFS= read -r file; do
  pkg=./$(dirname "$file")
  for target in $(sed -n 's/^func \(Fuzz[A-Za-z0-9_]*\)(.*/\1/p' "$file"); do
    echo "--- $target ($pkg, $FUZZTIME)"
    if ! go test -run '^$' -fuzz "^${target}\$" -fuzztime "$FUZZTIME" "$pkg"; then
      echo "FAIL: $target in $pkg" >&2
      status=1
    fi
  done
done < <(git ls-files '*_test.go' | xargs grep -l '^func Fuzz' | sort)
exit $status

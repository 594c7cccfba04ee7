#!/usr/bin/env bash
# Runs every Go native fuzz target (func FuzzX in a _test.go file) briefly, one at a time:
# the stdio framing (FuzzReadLine), config parsing (FuzzParse), manifest decoding
# (FuzzManifest), result decoding (FuzzDecodeToolResult), argument validation
# (FuzzValidateArgs), raw requests through the Streamable HTTP handler (FuzzHTTPHandler),
# manifest values handed to the MCP SDK (FuzzRegisterManifest) and
# whatever is added later. FUZZTIME per target, default 50000x
# (50,000 generated inputs: seconds per target on 2 cores).
# A failure leaves the failing input under the package's testdata/fuzz/FuzzX/ (commit it as a
# regression case) and exits non-zero.
#
# Why a count and not a duration: with a duration (-fuzztime 10s) Go's fuzzing coordinator
# can end with a bare "context deadline exceeded" and no failing input when the deadline
# lands while a worker minimizes a new coverage input on a loaded machine (golang/go#75804,
# #51484); a count sets no deadline. A duration given in FUZZTIME (a long local run) still
# works: that bare race is then reported and tolerated. Anything else non-zero fails.
set -euo pipefail
cd "$(dirname "$0")/.."
FUZZTIME=${FUZZTIME:-50000x}
status=0
log=$(mktemp)
trap 'rm -f "$log"' EXIT
while IFS= read -r file; do
  pkg=./$(dirname "$file")
  for target in $(sed -n 's/^func \(Fuzz[A-Za-z0-9_]*\)(.*/\1/p' "$file"); do
    echo "--- $target ($pkg, $FUZZTIME)"
    if go test -run '^$' -fuzz "^${target}\$" -fuzztime "$FUZZTIME" "$pkg" >"$log" 2>&1; then
      tail -n 3 "$log"
      continue
    fi
    cat "$log"
    if grep -q 'context deadline exceeded' "$log" && ! grep -qE 'Failing input written|panic:|_test\.go:[0-9]+:' "$log"; then
      echo "fuzz.sh: $target: the fuzzing coordinator's deadline race, no failing input: tolerated"
      continue
    fi
    echo "FAIL: $target in $pkg" >&2
    status=1
  done
done < <(git ls-files '*_test.go' | xargs grep -l '^func Fuzz' | sort)
exit $status

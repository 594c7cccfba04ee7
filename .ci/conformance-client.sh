#!/usr/bin/env bash
# Runs the official MCP conformance suite's client scenarios (@modelcontextprotocol/conformance,
# pinned with the Node 22 it needs in testdata/conformance/client/package-lock.json) against
# mcpwasm's client commands, through the adapter testdata/conformance/client/run, for every
# scenario each spec revision requires (2025-11-25 and 2026-07-28), one scenario at a time.
#
# Exit status: non-zero if a scenario fails that testdata/conformance/client-baseline.txt does
# not list (a regression), if a listed scenario passes (a stale entry: remove it), or if the
# suite could not run. See testdata/conformance/client/README.md.
set -euo pipefail
cd "$(dirname "$0")/.."

# The whole script is time-bound: re-run under timeout, which signals its whole process group.
if [ -z "${MCPWASM_CONFORMANCE_CLIENT_TIMED:-}" ]; then
	MCPWASM_CONFORMANCE_CLIENT_TIMED=1 exec timeout -k 10 1200 bash "$PWD/.ci/conformance-client.sh" "$@"
fi

dir=testdata/conformance/client
baseline=testdata/conformance/client-baseline.txt
revisions=(2025-11-25 2026-07-28 extension) # "extension": the auth extension scenarios, once
subset=" ${MCPWASM_CONFORMANCE_SCENARIOS:-} "

tmp=$(mktemp -d)
step_pid=""
. .ci/lib.sh # stop, step
lane_pids=()
cleanup() {
	[ -z "$step_pid" ] || stop "$step_pid"
	for pid in "${lane_pids[@]}"; do kill "$pid" 2>/dev/null || true; done
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 143' TERM INT

say() { echo "conformance-client: $*"; }

# 1. The suite and Node 22.
npm_install "$dir"
export PATH=$PWD/$dir/node_modules/.bin:$PATH # the adapter and its "browser" run node too
node=$(command -v node)
node_major=$("$node" -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)
if [ "$node_major" -lt 22 ]; then
	echo "conformance-client: need Node >= 22 (got ${node_major} from $node)" >&2
	exit 1
fi
cli=$dir/node_modules/@modelcontextprotocol/conformance/dist/index.js
say "node $("$node" --version), suite $("$node" -p "require('./$dir/node_modules/@modelcontextprotocol/conformance/package.json').version")"

# 2. mcpwasm, the client under test.
step timeout 120 go build -o "$tmp/mcpwasm" ./cmd/mcpwasm
export MCPWASM_BIN=$tmp/mcpwasm

# 3. Every required client scenario of each revision: the two revisions side by side, the
# scenarios of one revision one at a time (all at once, the suite's default, fails scenarios by
# timing on a loaded 2-core machine). A lane writes "pass|fail SCENARIO@REVISION" lines.
# lane REV: runs REV's scenarios; exit 1 if one did not complete.
lane() {
	local rev=$1 s out rc
	local -a scenarios
	local -a version=(--spec-version "$rev")
	if [ "$rev" = extension ]; then
		mapfile -t scenarios < <("$node" "$cli" list --client | sed -n 's/^  - \(auth\/[^ ]*\) \[extension\]$/\1/p')
		version=()
	else
		mapfile -t scenarios < <("$node" "$cli" list --client --requirements "$rev" |
			sed -n '/^Client scenarios/,/^$/s/^  - \([^ ]*\).*/\1/p')
	fi
	if [ ${#scenarios[@]} -eq 0 ]; then
		echo "conformance-client: the suite lists no client scenarios for $rev" >&2
		return 1
	fi
	for s in "${scenarios[@]}"; do
		[ "$subset" = "  " ] || [[ $subset == *" $s "* ]] || continue
		out=$tmp/$rev-${s//\//_}.txt
		rc=0
		# The suite kills the client after --timeout (its default, 30 s, is the whole run of an
		# auth scenario: two mcpwasm commands, each an OAuth flow through a node "browser", which
		# on a loaded machine took longer; the client then "never reached the authorization
		# endpoint"). 100 s, inside this step's own 110 s.
		timeout 110 "$node" "$cli" client --command "$PWD/$dir/run" --scenario "$s" "${version[@]}" \
			--timeout 100000 -o "$tmp/results-$rev" >"$out" 2>&1 </dev/null || rc=$?
		counts=$(sed -n 's/\x1b\[[0-9;]*m//g; s/^\(Passed: .*\)$/\1/p' "$out" | tail -n 1)
		if grep -q 'OVERALL: PASSED' "$out"; then
			echo "pass $s@$rev $counts"
		elif grep -qE '^(Passed: |.*OVERALL: FAILED)' "$out"; then
			echo "fail $s@$rev $counts"
		else
			echo "conformance-client: scenario $s ($rev) did not complete (exit $rc):" >&2
			tail -n 30 "$out" >&2
			return 1
		fi
	done
}
lane_pids=()
for rev in "${revisions[@]}"; do
	[ "$rev" != extension ] || continue
	lane "$rev" >"$tmp/lane-$rev.txt" &
	lane_pids+=($!)
done
for pid in "${lane_pids[@]}"; do
	wait "$pid" || exit 1
done
lane_pids=()
lane extension >"$tmp/lane-extension.txt" || exit 1 # after the others: no third lane's load on them
declare -A failed passed
for rev in "${revisions[@]}"; do
	n_pass=0 n_fail=0
	while read -r verdict key counts; do
		say "  $verdict $key${counts:+ ($counts)}"
		if [ "$verdict" = pass ]; then
			passed[$key]=1
			n_pass=$((n_pass + 1))
		else
			failed[$key]=1
			n_fail=$((n_fail + 1))
		fi
	done <"$tmp/lane-$rev.txt"
	say "$rev: $n_pass/$((n_pass + n_fail)) client scenarios pass ($n_fail fail)"
done

# 4. Compare with the baseline: "SCENARIO" (every revision) or "SCENARIO@REVISION".
declare -A expected
while IFS= read -r line; do
	entry=${line%%#*}
	entry=$(echo "$entry" | tr -d '[:space:]')
	[ -n "$entry" ] && expected[$entry]=1
done <"$baseline"

regressions=()
for key in "${!failed[@]}"; do
	if [ -z "${expected[$key]:-}" ] && [ -z "${expected[${key%@*}]:-}" ]; then
		regressions+=("$key")
	fi
done
stale=()
for entry in "${!expected[@]}"; do
	if [[ $entry == *@* ]]; then
		keys=("$entry")
	else
		keys=()
		for rev in "${revisions[@]}"; do keys+=("$entry@$rev"); done
	fi
	ran=0
	for key in "${keys[@]}"; do
		[ -n "${failed[$key]:-}" ] && ran=1 && continue 2 # still fails somewhere: keep it
		[ -n "${passed[$key]:-}" ] && ran=1
	done
	if [ "$ran" = 1 ]; then
		stale+=("$entry")
	elif [ "$subset" != "  " ]; then
		continue # not in this subset
	else
		stale+=("$entry (not run: renamed or removed upstream?)")
	fi
done

status=0
if [ ${#stale[@]} -gt 0 ]; then
	echo "conformance-client: FAILED: stale entries in $baseline (they pass now, or no longer exist; remove them):" >&2
	printf '  %s\n' "${stale[@]}" >&2
	status=1
fi
if [ ${#regressions[@]} -gt 0 ]; then
	mapfile -t regressions < <(printf '%s\n' "${regressions[@]}" | sort)
	echo "conformance-client: FAILED: ${#regressions[@]} scenario(s) fail that $baseline does not list:" >&2
	for r in "${regressions[@]}"; do
		echo "  $r" >&2
		s=${r%@*} rev=${r#*@}
		for f in "$tmp/results-$rev/$s-"*/checks.json; do
			[ -f "$f" ] && "$node" -e '
				for (const c of require(process.argv[1]))
					if (c.status === "FAILURE") console.error("    " + c.id + ": " + (c.errorMessage || c.description || ""));
			' "$f"
			[ -f "${f%/checks.json}/stderr.txt" ] && sed 's/^/    client: /' "${f%/checks.json}/stderr.txt" | tail -n 5 >&2
		done
	done
	status=1
fi
[ "$status" = 0 ] && say "OK: every failing scenario is in $baseline, and every entry there still fails"
exit "$status"

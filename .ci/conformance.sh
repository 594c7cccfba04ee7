#!/usr/bin/env bash
# Runs the official MCP conformance server suite (@modelcontextprotocol/conformance, pinned in
# testdata/conformance/package-lock.json, on the Node 22 that the same lock pins) against
# `mcpwasm serve --http` on loopback, once per HTTP mode and protocol revision, and compares the failing scenarios with
# testdata/conformance/baseline.txt.
#
# Exit status: non-zero if a scenario fails that the baseline does not list (a regression), if a
# baseline entry passes (stale: remove it), if a "~" entry's scenario fails twice in a row (in
# the suite run, then alone) or needs more retries than .ci/lib.sh retry_verdict allows, or if
# the suite could not run.
# See testdata/conformance/README.md.
set -euo pipefail
cd "$(dirname "$0")/.."

# The whole script is time-bound: re-run under timeout, which signals its whole process group.
if [ -z "${MCPWASM_CONFORMANCE_TIMED:-}" ]; then
	MCPWASM_CONFORMANCE_TIMED=1 exec timeout -k 10 900 bash "$PWD/.ci/conformance.sh" "$@"
fi

dir=testdata/conformance
baseline=$dir/baseline.txt
# HTTP modes: name, the protocol revisions run against it (the suite's --spec-version), serve
# flags. 2025-11-25 needs sessions or tolerates their absence; 2026-07-28 is sessionless, so
# it runs where requests are served statelessly: the --stateless modes, and the default mode
# ("sse", no flags), which picks the generation per request — so there both revisions run
# against the same process. A baseline entry "MODE@REVISION/SCENARIO" applies to one
# run, "MODE/SCENARIO" to every revision of a mode, "@REVISION/SCENARIO" to every mode of a
# revision, a bare "SCENARIO" to every run.
modes=("sse|2025-11-25,2026-07-28|" "json|2025-11-25|--json-response"
	"stateless|2025-11-25,2026-07-28|--stateless" "stateless-json|2025-11-25,2026-07-28|--stateless --json-response")

tmp=$(mktemp -d)
server_pid=""
step_pid=""
. .ci/lib.sh # stop, step, suite, retry_*
cleanup() {
	for pid in $step_pid $server_pid; do stop "$pid"; done
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 143' TERM INT

say() { echo "conformance: $*"; }

# 1. The suite and Node 22 (npm package node-linux-<arch>; the machine's node may be older).
suite "$dir" conformance # sets node, cli
say "node $("$node" --version), suite $("$node" -p "require('./$dir/node_modules/@modelcontextprotocol/conformance/package.json').version")"

# 2. mcpwasm and the Go guest with the suite's fixtures (plus the bundled calc and text).
step timeout 300 go build -o "$tmp/mcpwasm" ./cmd/mcpwasm
step env GOOS=wasip1 GOARCH=wasm timeout 300 go build -buildmode=c-shared -trimpath -ldflags="-s -w" \
	-o "$tmp/conformance.wasm" ./testdata/guests/conformance
# The conformance guest requests sampling, elicitation and roots (its manifest); the config
# grants them (docs/grants.md), so test_sampling, test_elicitation* and the
# test_input_required_result_* tools reach the client, and the clock, so the tasks fixtures
# (slow_compute, failing_job) can wait. calc and text get nothing.
cat >"$tmp/mcpwasm.json" <<JSON
{
  "guests": [
    { "path": "conformance.wasm", "grants": { "sampling": true, "elicitation": true, "roots": true, "clock": true } },
    { "path": "$PWD/guests/calc.wasm" },
    { "path": "$PWD/guests/text.wasm" }
  ]
}
JSON

# The baseline. An entry starting with "~" names a scenario whose outcome depends on timing
# in the runs it covers (testdata/conformance/README.md): when it fails there, it is run
# again alone against the same server; passing then counts as a retry (.ci/lib.sh retry_*:
# the run fails when the same scenario needs one in two consecutive suite runs, or two
# scenarios need one), failing again is a regression. It covers no failure and is never stale.
declare -A expected flaky
while IFS= read -r line; do
	entry=${line%%#*}
	entry=$(echo "$entry" | tr -d '[:space:]')
	if [[ $entry == "~"* ]]; then
		entry=${entry#"~"}
		flaky[$entry]=1
	fi
	[ -n "$entry" ] && expected[$entry]=1
done <"$baseline"

# covers RUN/SCENARIO [~]: the baseline entries that apply to it; with "~", the "~" ones,
# else the others.
covers() {
	local run=${1%%/*} name=${1#*/}
	local mode=${run%@*} rev=${run#*@}
	for e in "$name" "$mode/$name" "@$rev/$name" "$run/$name"; do
		[ -n "${expected[$e]:-}" ] || continue
		if [ "${2:-}" = "~" ]; then
			[ -n "${flaky[$e]:-}" ] && echo "$e"
		else
			[ -z "${flaky[$e]:-}" ] && echo "$e"
		fi
	done
	return 0
}

# The tasks extension's scenarios, from the suite's own list.
tasks_scenarios=$("$node" "$cli" list 2>/dev/null | sed -n 's/^ *- \(tasks-[a-z0-9-]*\) \[extension\]$/\1/p')
if [ -z "$tasks_scenarios" ]; then
	echo "conformance: the suite lists no tasks-* scenarios" >&2
	exit 1
fi

# 3. One server per HTTP mode; against it, the suite once per protocol revision of that mode.
# A run is MODE@REVISION.
declare -A failed_in passed_in ran
runs=()
retry_init
for m in "${modes[@]}"; do
	IFS='|' read -r mode revisions flagline <<<"$m"
	read -r -a flags <<<"$flagline"
	log=$tmp/serve-$mode.log
	: >"$log" # created before the server: its `2>` opens it in the background child, maybe after sed first reads it
	timeout 600 "$tmp/mcpwasm" serve --http 127.0.0.1:0 "${flags[@]}" --cache-dir "$tmp/cache" \
		--config "$tmp/mcpwasm.json" 2>"$log" &
	server_pid=$!
	addr=""
	for _ in $(seq 600); do # 120 s: the first start compiles the guests
		addr=$(sed -n 's/.*msg=serving .*addr=\([^ ]*\).*/\1/p' "$log" | head -n1)
		[ -n "$addr" ] && break
		kill -0 "$server_pid" 2>/dev/null || break
		sleep 0.2
	done
	if [ -z "$addr" ]; then
		echo "conformance: mcpwasm serve ($mode) did not start:" >&2
		cat "$log" >&2
		exit 1
	fi
	case $addr in
	127.*) ;;
	*) echo "conformance: server not on loopback: $addr" >&2; exit 1 ;;
	esac

	for rev in ${revisions//,/ }; do
		run=$mode@$rev
		runs+=("$run")
		out=$tmp/suite-$run.txt
		retry_run
		rc=0
		step timeout 180 "$node" "$cli" server --suite all --spec-version "$rev" --url "http://$addr/mcp" \
			-o "$tmp/results-$run" >"$out" 2>&1 || rc=$?
		total=$(grep -E '^Total: [0-9]+ passed, [0-9]+ failed' "$out" || true)
		if [ "$rc" -gt 1 ] || [ -z "$total" ]; then
			echo "conformance: the suite did not complete in $run (exit $rc):" >&2
			tail -n 40 "$out" >&2
			exit 1
		fi
		# Summary lines: "✓ NAME: N passed, M failed" / "✗ NAME: ...".
		n_pass=0 n_fail=0
		while read -r mark name; do
			name=${name%%:*}
			ran[$run/$name]=1
			if [ "$mark" = "✗" ]; then
				failed_in[$run/$name]=1
				n_fail=$((n_fail + 1))
				if [ -n "$(covers "$run/$name" "~")" ] && [ -z "$(covers "$run/$name")" ]; then
					# A "~" scenario: once more, alone. A single scenario's run ends
					# "Passed: N/N, 0 failed" (no "✓ NAME:" summary line).
					step timeout 120 "$node" "$cli" server --scenario "$name" --spec-version "$rev" \
						--url "http://$addr/mcp" </dev/null >"$out.retry-$name" 2>&1 || true
					if grep -qE "^✓ $name: |^Passed: ([0-9]+)/\1, 0 failed" "$out.retry-$name"; then
						say "$run: $name failed and passed when run again alone (a \"~\" entry; retried: see the summary)"
						retry_note "$name" "$run"
						unset "failed_in[$run/$name]"
					else
						say "$run: $name (a \"~\" entry) failed twice in a row: in the suite run and alone:"
						grep -a -A12 '^Test Results:' "$out.retry-$name" || tail -n 30 "$out.retry-$name"
					fi
				fi
			else
				passed_in[$run/$name]=1
				n_pass=$((n_pass + 1))
			fi
		done < <(sed -n '/^=== SUMMARY ===/,$p' "$out" | grep -E '^(✓|✗) [^ ]+: [0-9]+ passed, [0-9]+ failed')
		# The tasks extension's scenarios (SEP-2663; "[extension]" in the suite's list, so not in
		# --suite all) run on the 2026-07-28 wire, one by one; a run ends "Passed: N/M, K failed".
		if [ "$rev" = 2026-07-28 ]; then
			for name in $tasks_scenarios; do
				ran[$run/$name]=1
				step timeout 120 "$node" "$cli" server --scenario "$name" --url "http://$addr/mcp" \
					-o "$tmp/results-$run" </dev/null >"$out.$name" 2>&1 || true
				if grep -qE "^Passed: ([0-9]+)/\1, 0 failed" "$out.$name"; then
					passed_in[$run/$name]=1
					n_pass=$((n_pass + 1))
				else
					failed_in[$run/$name]=1
					n_fail=$((n_fail + 1))
				fi
			done
		fi
		say "$run (serve --http $addr${flags[*]:+ ${flags[*]}}): suite says \"$total\" (checks); scenarios: $n_pass pass, $n_fail fail"
	done
	stop "$server_pid"
	server_pid=""
done

# 4. Compare with the baseline: every failure must be listed, and every entry must still fail
# in every run it covers (a stale entry fails the script too, so the baseline never hides a
# fixed scenario). A "~" entry covers no failure: its failures were retried in step 3.
regressions=()
for key in "${!failed_in[@]}"; do
	[ -z "$(covers "$key")" ] && regressions+=("$key")
done

stale=()
for entry in "${!expected[@]}"; do
	[ -n "${flaky[$entry]:-}" ] && continue
	name=${entry##*/} scope=""
	[[ $entry == */* ]] && scope=${entry%/*}
	keys=()
	for run in "${runs[@]}"; do
		case $scope in
		"" | "$run" | "${run%@*}" | "@${run#*@}") keys+=("$run/$name") ;;
		esac
	done
	now_pass=() ran_any=0
	for key in "${keys[@]}"; do
		[ -n "${ran[$key]:-}" ] || continue
		ran_any=1
		[ -n "${passed_in[$key]:-}" ] && now_pass+=("$key")
	done
	if [ $ran_any -eq 0 ]; then
		stale+=("$entry: did not run in any run it covers (renamed or removed upstream?)")
	elif [ ${#now_pass[@]} -gt 0 ]; then
		stale+=("$entry: passes now in ${now_pass[*]}; remove it or narrow it to the runs where it fails")
	fi
done

failed=0
retry_verdict | sed 's/^/conformance: /' || failed=1
if [ ${#stale[@]} -gt 0 ]; then
	echo "conformance: FAILED: ${#stale[@]} stale baseline entr(y/ies) in $baseline:" >&2
	printf '  %s\n' "${stale[@]}" | sort >&2
	failed=1
fi
if [ ${#regressions[@]} -gt 0 ]; then
	mapfile -t regressions < <(printf '%s\n' "${regressions[@]}" | sort)
	echo "conformance: FAILED: ${#regressions[@]} scenario(s) fail that $baseline does not list:" >&2
	for r in "${regressions[@]}"; do
		run=${r%%/*}
		echo "  $r" >&2
		# The failing checks' messages, from the suite's output directory.
		for f in "$tmp/results-$run/server-${r#*/}-"*/checks.json; do
			[ -f "$f" ] && "$node" -e '
				for (const c of require(process.argv[1]))
					if (c.status === "FAILURE") console.error("    " + c.id + ": " + (c.errorMessage || ""));
			' "$f"
		done
	done
	failed=1
fi
[ $failed -eq 0 ] || exit 1
say "OK: the failing scenarios are exactly those in $baseline"

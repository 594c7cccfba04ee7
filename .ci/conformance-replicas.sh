#!/usr/bin/env bash
# Runs the official MCP conformance server suite (as .ci/conformance.sh does, with its npm
# install dir testdata/conformance and its baseline) against THREE `mcpwasm serve --http
# --stateless` replicas behind testdata/lbproxy, a round-robin load balancer that routes only
# to replicas whose GET /readyz is 200 — so consecutive requests of one client reach different
# processes, as behind a Kubernetes Service (docs/operations.md,
# "Three replicas behind a load balancer"). Modes: stateless and stateless-json (sessions cannot span replicas).
#
# Exit status: non-zero if a scenario fails that testdata/conformance/baseline.txt does not
# list for that mode (entries "stateless/X", "stateless-json/X" or a bare "X") and fails again
# when run alone; if retries exceed their limit (.ci/lib.sh, retry_verdict: the same scenario
# retried in two consecutive suite runs, or more than one scenario retried); or if the suite
# could not run. The summary lists every retried scenario.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ -z "${MCPWASM_CONFORMANCE_TIMED:-}" ]; then
	MCPWASM_CONFORMANCE_TIMED=1 exec timeout -k 10 600 bash "$PWD/.ci/conformance-replicas.sh" "$@"
fi

dir=testdata/conformance
baseline=$dir/baseline.txt
modes=("stateless|--stateless" "stateless-json|--stateless --json-response")
replicas=3

tmp=$(mktemp -d)
step_pid=""
. .ci/lib.sh # stop, step, suite
pids=()
cleanup() {
	[ -z "$step_pid" ] || stop "$step_pid"
	for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
	for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 143' TERM INT

say() { echo "conformance-replicas: $*"; }

# waitlog FILE REGEX PID: waits (60 s at most) until FILE has a line matching REGEX; prints
# the first match's group 1. FILE must exist before PID starts: a background command's
# `2>FILE` is opened by the forked child, which may not have run yet when waitlog first
# reads (that race once printed "sed: can't read …/serve-stateless-json-3.log"), so each
# log is created empty before its process starts.
waitlog() {
	local out=""
	for _ in $(seq 300); do
		out=$(sed -n -E "s#$2#\\1#p" "$1" | head -n1)
		[ -n "$out" ] && { echo "$out"; return 0; }
		kill -0 "$3" 2>/dev/null || break
		sleep 0.2
	done
	echo "conformance-replicas: gave up waiting for /$2/ in $1:" >&2
	cat "$1" >&2
	return 1
}

# 1. The suite and Node 22, from .ci/conformance.sh's install dir.
suite "$dir" conformance-replicas # sets node, cli

# 2. mcpwasm, the proxy and the suite's guest.
timeout 120 go build -o "$tmp/mcpwasm" ./cmd/mcpwasm
timeout 120 go build -o "$tmp/lbproxy" ./testdata/lbproxy
env GOOS=wasip1 GOARCH=wasm timeout 300 go build -buildmode=c-shared -trimpath -ldflags="-s -w" \
	-o "$tmp/conformance.wasm" ./testdata/guests/conformance
# As in conformance.sh, the config grants the conformance guest the client kinds; the replicas
# share one request_state_key, so an input-required round started on one replica is finished
# on another (SEP-2322 request state, ABI.md §6.7).
cat >"$tmp/mcpwasm.json" <<JSON
{
  "guests": [
    { "path": "conformance.wasm", "grants": { "sampling": true, "elicitation": true, "roots": true } },
    { "path": "$PWD/guests/calc.wasm" },
    { "path": "$PWD/guests/text.wasm" }
  ],
  "request_state_key": "$(od -An -tx1 -N32 /dev/urandom | tr -d ' \n')"
}
JSON

declare -A expected
while IFS= read -r line; do
	entry=$(echo "${line%%#*}" | tr -d '[:space:]')
	entry=${entry#"~"} # "~": may fail (conformance.sh); here every entry only excuses a failure
	[ -n "$entry" ] && expected[$entry]=1
done <"$baseline"

regressions=()
retry_init
for m in "${modes[@]}"; do
	mode=${m%%|*}
	read -r -a flags <<<"${m#*|}"
	pids=()
	backends=()
	for i in $(seq "$replicas"); do
		log=$tmp/serve-$mode-$i.log
		: >"$log" # before the process: see waitlog
		"$tmp/mcpwasm" serve --http 127.0.0.1:0 "${flags[@]}" --cache-dir "$tmp/cache" --config "$tmp/mcpwasm.json" 2>"$log" &
		pids+=($!)
		addr=$(waitlog "$log" '.*msg=serving .*addr=([^ ]*).*' "$!")
		backends+=(-backend "http://$addr")
	done
	plog=$tmp/lbproxy-$mode.log
	: >"$plog"
	"$tmp/lbproxy" -check-interval 100ms "${backends[@]}" 2>"$plog" &
	pids+=($!)
	proxy=$(waitlog "$plog" '.*listening on (http:[^ ]*).*' "$!")
	for ((i = 1; i < ${#backends[@]}; i += 2)); do
		waitlog "$plog" ".*backend (${backends[$i]}) ready.*" "${pids[-1]}" >/dev/null
	done

	# Both protocol revisions, as .ci/conformance.sh runs them in the stateless modes; a
	# baseline entry applies as there: MODE@REV/S, MODE/S, @REV/S or S.
	for rev in 2025-11-25 2026-07-28; do
		out=$tmp/suite-$mode-$rev.txt
		retry_run
		rc=0
		timeout 180 "$node" "$cli" server --suite all --spec-version "$rev" --url "$proxy/mcp" -o "$tmp/results-$mode-$rev" >"$out" 2>&1 || rc=$?
		total=$(grep -E '^Total: [0-9]+ passed, [0-9]+ failed' "$out" || true)
		if [ "$rc" -gt 1 ] || [ -z "$total" ]; then
			echo "conformance-replicas: the suite did not complete in mode $mode at $rev (exit $rc):" >&2
			tail -n 40 "$out" >&2
			exit 1
		fi
		n_pass=0 n_fail=0
		while read -r mark name; do
			name=${name%%:*}
			if [ "$mark" = "✗" ]; then
				n_fail=$((n_fail + 1))
				if [ -z "${expected[$mode@$rev/$name]:-}" ] && [ -z "${expected[$mode/$name]:-}" ] &&
					[ -z "${expected[@$rev/$name]:-}" ] && [ -z "${expected[$name]:-}" ]; then
					# One retry of that scenario alone: through a proxy on a loaded 2-core
					# machine a single request can miss the suite's own deadline. A real
					# regression fails again.
					# Each failure's own words are printed, so a CI log says what failed.
					say "mode $mode@$rev: $name failed; the suite's failed checks:"
					grep -h -B2 -A6 '"status": "FAILURE"' "$tmp/results-$mode-$rev"/server-"$name"-*/checks.json 2>/dev/null | head -n 40 || true
					# A single scenario's run ends "Passed: N/N, 0 failed" (no "✓ NAME:" summary).
					timeout 120 "$node" "$cli" server --scenario "$name" --spec-version "$rev" --url "$proxy/mcp" </dev/null \
						>"$out.retry-$name" 2>&1 || true
					if grep -qE "^✓ $name: |^Passed: ([0-9]+)/\1, 0 failed" "$out.retry-$name"; then
						say "mode $mode@$rev: $name failed once and passed when run again alone (retried: see the summary)"
						retry_note "$name" "$mode@$rev"
					else
						say "mode $mode@$rev: $name failed again alone:"
						tail -n 30 "$out.retry-$name"
						regressions+=("$mode@$rev/$name")
					fi
				fi
			else
				n_pass=$((n_pass + 1))
			fi
		done < <(sed -n '/^=== SUMMARY ===/,$p' "$out" | grep -E '^(✓|✗) [^ ]+: [0-9]+ passed, [0-9]+ failed')
		say "mode $mode@$rev ($replicas replicas behind $proxy): suite says \"$total\" (checks); scenarios: $n_pass pass, $n_fail fail"
	done
	for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
	for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
	pids=()
done

failed=0
retry_verdict | sed 's/^/conformance-replicas: /' || failed=1
if [ ${#regressions[@]} -gt 0 ]; then
	echo "conformance-replicas: FAILED: ${#regressions[@]} scenario(s) fail through the load balancer that $baseline does not list:" >&2
	printf '  %s\n' "${regressions[@]}" | sort >&2
	failed=1
fi
[ "$failed" = 0 ] || exit 1
say "OK: every failing scenario is in $baseline"

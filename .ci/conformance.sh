#!/usr/bin/env bash
# Runs the official MCP conformance server suite (@modelcontextprotocol/conformance, pinned in
# testdata/conformance/package-lock.json, on the Node 22 that the same lock pins) against
# `mcpwasm serve --http` on loopback, once per HTTP mode, and compares the failing scenarios with
# testdata/conformance/baseline.txt.
#
# Exit status: non-zero only if a scenario fails that the baseline does not list (a regression),
# or if the suite could not run. Baseline entries that now pass are printed (shrink the baseline).
# See testdata/conformance/README.md.
set -euo pipefail
cd "$(dirname "$0")/.."

# The whole script is time-bound: re-run under timeout, which signals its whole process group.
if [ -z "${MCPWASM_CONFORMANCE_TIMED:-}" ]; then
	MCPWASM_CONFORMANCE_TIMED=1 exec timeout -k 10 290 bash "$PWD/.ci/conformance.sh" "$@"
fi

dir=testdata/conformance
baseline=$dir/baseline.txt
# HTTP modes: name and serve flags. A baseline entry "MODE/SCENARIO" applies to one mode,
# a bare "SCENARIO" to every mode.
modes=("sse|" "json|--json-response" "stateless|--stateless" "stateless-json|--stateless --json-response")

tmp=$(mktemp -d)
server_pid=""
step_pid=""
# stop PID: ends a `timeout` started below and everything under it (timeout leads its own
# process group): TERM, then KILL after 5 s (npm can take longer than that to honour TERM).
stop() {
	kill -TERM -- "-$1" 2>/dev/null || kill -TERM "$1" 2>/dev/null || true
	for _ in $(seq 25); do
		kill -0 "$1" 2>/dev/null || break
		sleep 0.2
	done
	kill -KILL -- "-$1" 2>/dev/null || true
	wait "$1" 2>/dev/null || true
}
cleanup() {
	for pid in $step_pid $server_pid; do stop "$pid"; done
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 143' TERM INT

# step CMD…: runs CMD in the background and waits, so that a signal to this script (the
# overall timeout, ^C) is handled at once and ends CMD too (each `timeout` has its own group).
step() {
	local rc=0
	"$@" &
	step_pid=$!
	wait "$step_pid" || rc=$?
	step_pid=""
	return "$rc"
}

say() { echo "conformance: $*"; }

# 1. The suite and Node 22 (npm package node-linux-<arch>; the machine's node may be older).
step timeout 180 npm ci --prefix "$dir" --no-audit --no-fund --loglevel=error
node=$dir/node_modules/.bin/node
if ! [ -x "$node" ]; then
	node=$(command -v node || true) # no node-<os>-<arch> package for this platform
fi
node_major=$("$node" -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)
if [ "$node_major" -lt 22 ]; then
	echo "conformance: need Node >= 22 (got ${node_major} from ${node:-nothing})" >&2
	exit 1
fi
cli=$dir/node_modules/@modelcontextprotocol/conformance/dist/index.js
say "node $("$node" --version), suite $("$node" -p "require('./$dir/node_modules/@modelcontextprotocol/conformance/package.json').version")"

# 2. mcpwasm and the guest with the suite's test_* tools (plus the bundled calc and text).
step timeout 120 go build -o "$tmp/mcpwasm" ./cmd/mcpwasm
command -v wat2wasm >/dev/null || { echo "conformance: wat2wasm (Debian package wabt) is needed" >&2; exit 1; }
wat2wasm "$dir/conformance.wat" -o "$tmp/conformance.wasm"
guests=("$tmp/conformance.wasm" guests/calc.wasm guests/text.wasm)

# 3. One server per mode, the whole suite (active and pending scenarios) against it.
declare -A failed_in passed_in ran
for m in "${modes[@]}"; do
	mode=${m%%|*}
	read -r -a flags <<<"${m#*|}"
	log=$tmp/serve-$mode.log
	timeout 240 "$tmp/mcpwasm" serve --http 127.0.0.1:0 "${flags[@]}" --cache-dir "$tmp/cache" \
		"${guests[@]}" 2>"$log" &
	server_pid=$!
	addr=""
	for _ in $(seq 300); do # 60 s: the first start compiles the guests
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

	out=$tmp/suite-$mode.txt
	rc=0
	step timeout 120 "$node" "$cli" server --suite all --url "http://$addr/mcp" -o "$tmp/results-$mode" >"$out" 2>&1 || rc=$?
	stop "$server_pid"
	server_pid=""

	total=$(grep -E '^Total: [0-9]+ passed, [0-9]+ failed' "$out" || true)
	if [ "$rc" -gt 1 ] || [ -z "$total" ]; then
		echo "conformance: the suite did not complete in mode $mode (exit $rc):" >&2
		tail -n 40 "$out" >&2
		exit 1
	fi
	# Summary lines: "✓ NAME: N passed, M failed" / "✗ NAME: ...".
	n_pass=0 n_fail=0
	while read -r mark name; do
		name=${name%%:*}
		ran[$mode/$name]=1
		if [ "$mark" = "✗" ]; then
			failed_in[$mode/$name]=1
			n_fail=$((n_fail + 1))
		else
			passed_in[$mode/$name]=1
			n_pass=$((n_pass + 1))
		fi
	done < <(sed -n '/^=== SUMMARY ===/,$p' "$out" | grep -E '^(✓|✗) [^ ]+: [0-9]+ passed, [0-9]+ failed')
	say "mode $mode (serve --http $addr${flags[*]:+ ${flags[*]}}): suite says \"$total\" (checks); scenarios: $n_pass pass, $n_fail fail"
done

# 4. Compare with the baseline.
declare -A expected
while IFS= read -r line; do
	entry=${line%%#*}
	entry=$(echo "$entry" | tr -d '[:space:]')
	[ -n "$entry" ] && expected[$entry]=1
done <"$baseline"

mode_names=()
for m in "${modes[@]}"; do mode_names+=("${m%%|*}"); done

regressions=()
for key in "${!failed_in[@]}"; do
	name=${key#*/}
	if [ -z "${expected[$key]:-}" ] && [ -z "${expected[$name]:-}" ]; then
		regressions+=("$key")
	fi
done

stale=()
for entry in "${!expected[@]}"; do
	if [[ $entry == */* ]]; then
		keys=("$entry")
	else
		keys=()
		for mode in "${mode_names[@]}"; do keys+=("$mode/$entry"); done
	fi
	now_pass=()
	for key in "${keys[@]}"; do
		if [ -z "${ran[$key]:-}" ]; then
			say "baseline entry $entry: $key did not run (renamed or removed upstream?)"
		elif [ -n "${passed_in[$key]:-}" ]; then
			now_pass+=("$key")
		fi
	done
	if [ ${#now_pass[@]} -eq ${#keys[@]} ]; then
		stale+=("$entry: passes now, remove it from $baseline")
	elif [ ${#now_pass[@]} -gt 0 ]; then
		stale+=("$entry: passes now in ${now_pass[*]}; keep it only for the modes where it fails (MODE/$entry)")
	fi
done

for s in "${stale[@]}"; do say "baseline entry $s"; done
if [ ${#regressions[@]} -gt 0 ]; then
	mapfile -t regressions < <(printf '%s\n' "${regressions[@]}" | sort)
	echo "conformance: FAILED: ${#regressions[@]} scenario(s) fail that $baseline does not list:" >&2
	for r in "${regressions[@]}"; do
		mode=${r%%/*}
		echo "  $r" >&2
		# The failing checks' messages, from the suite's output directory.
		for f in "$tmp/results-$mode/server-${r#*/}-"*/checks.json; do
			[ -f "$f" ] && "$node" -e '
				for (const c of require(process.argv[1]))
					if (c.status === "FAILURE") console.error("    " + c.id + ": " + (c.errorMessage || ""));
			' "$f"
		done
	done
	exit 1
fi
say "OK: every failing scenario is in $baseline"

#!/usr/bin/env bash
# Runs the MCP conformance server suite (as .ci/conformance.sh does: same pinned suite, same
# runs MODE@REVISION) against the go-sdk's reference server, conformance/everything-server of
# the go-sdk version in go.mod, and prints its score per run: the "go-sdk reference" column
# of testdata/conformance/README.md ("Scores").
#
# The stock command has -stateless but no flag for JSON responses; for the JSON modes a copy
# of its main.go with StreamableHTTPOptions.JSONResponse set is built (the module cache is not
# touched).
#
# Exit status: non-zero if the suite could not run, or if a baseline entry (not "~") names a
# scenario the reference passes in a run the entry covers: baseline.txt may only list what
# the reference fails too (testdata/conformance/README.md "Update the baseline").
set -euo pipefail
cd "$(dirname "$0")/.."

if [ -z "${MCPWASM_CONFORMANCE_TIMED:-}" ]; then
	MCPWASM_CONFORMANCE_TIMED=1 exec timeout -k 10 900 bash "$PWD/.ci/conformance-reference.sh" "$@"
fi

dir=testdata/conformance
baseline=$dir/baseline.txt
# MODE|REVISIONS|BINARY|FLAGS, as .ci/conformance.sh's modes.
modes=("sse|2025-11-25,2026-07-28|ref|-stateless=false" "json|2025-11-25|ref-json|-stateless=false"
	"stateless|2025-11-25,2026-07-28|ref|-stateless" "stateless-json|2025-11-25,2026-07-28|ref-json|-stateless")

tmp=$(mktemp -d)
server_pid=""
step_pid=""
. .ci/lib.sh # stop, step, suite
cleanup() {
	for pid in $step_pid $server_pid; do stop "$pid"; done
	rm -rf "$tmp" "${refdir:-}"
}
trap cleanup EXIT
trap 'exit 143' TERM INT

say() { echo "conformance-reference: $*"; }

suite "$dir" conformance-reference # sets node, cli

pkg=github.com/modelcontextprotocol/go-sdk/conformance/everything-server
src=$(go list -f '{{.Dir}}' "$pkg")/main.go
step timeout 300 go build -o "$tmp/ref" "$pkg"
# The JSON variant: a patched copy of main.go, built as a package of this module in a
# temporary directory (the module cache must stay as downloaded; go build -overlay refuses
# files there).
refdir=$(mktemp -d "$PWD/.ci/reference-server.XXXXXX")
sed 's/&mcp.StreamableHTTPOptions{Stateless: \*stateless}/\&mcp.StreamableHTTPOptions{Stateless: *stateless, JSONResponse: true}/' "$src" >"$refdir/main.go"
if ! grep -q 'JSONResponse: true' "$refdir/main.go"; then
	echo "conformance-reference: $src no longer has the line this script patches for JSON responses" >&2
	exit 1
fi
step timeout 300 go build -o "$tmp/ref-json" "./.ci/${refdir##*/}"
rm -rf "$refdir"
say "node $("$node" --version), suite $("$node" -p "require('./$dir/node_modules/@modelcontextprotocol/conformance/package.json').version"), $(go list -m -f '{{.Path}} {{.Version}}' github.com/modelcontextprotocol/go-sdk)"

# The baseline's plain entries (a "~" entry's outcome depends on timing: not judged here).
declare -A expected
while IFS= read -r line; do
	entry=${line%%#*}
	entry=$(echo "$entry" | tr -d '[:space:]')
	[[ -z $entry || $entry == "~"* ]] || expected[$entry]=1
done <"$baseline"

wrong=()
for m in "${modes[@]}"; do
	IFS='|' read -r mode revisions bin flag <<<"$m"
	port=$("$node" -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')
	timeout 600 "$tmp/$bin" -http "127.0.0.1:$port" "$flag" 2>"$tmp/serve-$mode.log" &
	server_pid=$!
	for _ in $(seq 150); do # 30 s
		(exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
		kill -0 "$server_pid" 2>/dev/null || break
		sleep 0.2
	done
	if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
		echo "conformance-reference: the reference server ($mode) did not start:" >&2
		cat "$tmp/serve-$mode.log" >&2
		exit 1
	fi
	for rev in ${revisions//,/ }; do
		run=$mode@$rev
		out=$tmp/suite-$run.txt
		rc=0
		step timeout 180 "$node" "$cli" server --suite all --spec-version "$rev" --url "http://127.0.0.1:$port/mcp" \
			>"$out" 2>&1 || rc=$?
		if [ "$rc" -gt 1 ] || ! grep -qE '^Total: [0-9]+ passed, [0-9]+ failed' "$out"; then
			echo "conformance-reference: the suite did not complete in $run (exit $rc):" >&2
			tail -n 40 "$out" >&2
			exit 1
		fi
		n_pass=0 n_all=0 fails=()
		while read -r mark name; do
			name=${name%%:*}
			n_all=$((n_all + 1))
			if [ "$mark" = "✗" ]; then
				fails+=("$name")
			else
				n_pass=$((n_pass + 1))
				for e in "$name" "$mode/$name" "@$rev/$name" "$run/$name"; do
					[ -n "${expected[$e]:-}" ] && wrong+=("$e (the reference passes it in $run)")
				done
			fi
		done < <(sed -n '/^=== SUMMARY ===/,$p' "$out" | grep -E '^(✓|✗) [^ ]+: [0-9]+ passed, [0-9]+ failed')
		say "$run: $n_pass/$n_all scenarios pass; fail: ${fails[*]:-none}"
	done
	stop "$server_pid"
	server_pid=""
done

if [ ${#wrong[@]} -gt 0 ]; then
	echo "conformance-reference: FAILED: baseline entries for scenarios the reference passes:" >&2
	printf '  %s\n' "${wrong[@]}" | sort -u >&2
	exit 1
fi
say "OK: every plain entry of $baseline names a scenario the reference fails too"

# Shell helpers shared by the .ci scripts (run, conformance.sh, conformance-client.sh,
# conformance-replicas.sh, conformance-reference.sh, container.sh). Source it after `cd` to the repository
# root; it defines functions only, and uses the caller's global step_pid.

# stop PID: ends a `timeout` started by the caller and everything under it (timeout leads its
# own process group): TERM, then KILL after 5 s (npm can take longer than that to honour TERM).
stop() {
	kill -TERM -- "-$1" 2>/dev/null || kill -TERM "$1" 2>/dev/null || true
	for _ in $(seq 25); do
		kill -0 "$1" 2>/dev/null || break
		sleep 0.2
	done
	kill -KILL -- "-$1" 2>/dev/null || true
	wait "$1" 2>/dev/null || true
}

# step CMD…: runs CMD in the background and waits, so that a signal to the script (its overall
# timeout, ^C) is handled at once and ends CMD too (each `timeout` leads its own process group).
step() {
	local rc=0
	"$@" &
	step_pid=$!
	wait "$step_pid" || rc=$?
	step_pid=""
	return "$rc"
}

# npm_install DIR: installs DIR's npm packages from its lockfile (npm ci), once per clone: a
# marker holding the lockfile's sha256 skips a second install of the same lockfile (several
# scripts use the same suite). A registry that stalls is given up on after 180 s (KILL 10 s
# after TERM: npm does not always honour TERM) and tried once more.
npm_install() {
	local sum marker=$1/node_modules/.mcpwasm-lock-sha256
	sum=$(sha256sum "$1/package-lock.json" | cut -d' ' -f1)
	if [ -f "$marker" ] && [ "$(cat "$marker")" = "$sum" ]; then
		return 0
	fi
	local try
	for try in 1 2; do
		if step timeout -k 10 180 npm ci --prefix "$1" --no-audit --no-fund --loglevel=error; then
			echo "$sum" >"$marker"
			return 0
		fi
		echo "npm ci --prefix $1 failed (try $try of 2)" >&2
	done
	return 1
}

# suite DIR WHO: installs the conformance suite pinned under DIR (npm ci) and sets node (Node
# >= 22: the npm package node-<os>-<arch> when the platform has one, else the machine's) and
# cli (the suite's entry point). WHO prefixes the error. Fails without Node 22.
suite() {
	npm_install "$1"
	node=$1/node_modules/.bin/node
	[ -x "$node" ] || node=$(command -v node || true)
	local major
	major=$("$node" -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)
	if [ "$major" -lt 22 ]; then
		echo "$2: need Node >= 22 (got $major from ${node:-nothing})" >&2
		return 1
	fi
	cli=$1/node_modules/@modelcontextprotocol/conformance/dist/index.js
}

# The retry tally of conformance-replicas.sh and conformance.sh (for its "~" entries), which
# run a scenario that failed once more, alone, and count it as passed if that passes. A retry
# hides a failure, so retries are counted and printed, and limited: one scenario may need one
# per script run, in one suite run or in runs that are not consecutive; the same scenario
# needing a retry in two consecutive suite runs, or two scenarios needing one, fail the
# script. State lives in globals for the script's run (nothing is kept between CI runs).
# retry_init: starts the tally. retry_run: a suite run begins. retry_note NAME WHERE: NAME
# (in suite run WHERE, e.g. stateless@2025-11-25) passed only when run again.
# retry_verdict: prints the tally; returns 1 if the limits are exceeded.
retry_init() {
	retried=()
	retry_twice=()
	declare -gA retry_names=()
	retry_prev=" "
	retry_cur=" "
}
retry_run() {
	retry_prev=$retry_cur
	retry_cur=" "
}
retry_note() {
	retried+=("$2/$1")
	retry_names[$1]=1
	if [[ $retry_prev == *" $1 "* ]]; then
		retry_twice+=("$1")
	fi
	retry_cur+="$1 "
}
retry_verdict() {
	echo "retried: ${#retried[@]} scenario run(s) failed and passed only when run again alone: ${retried[*]:-none}"
	local rc=0
	if [ ${#retry_twice[@]} -gt 0 ]; then
		echo "retried: FAILED: needed a retry in two consecutive suite runs: ${retry_twice[*]}" >&2
		rc=1
	fi
	if [ ${#retry_names[@]} -gt 1 ]; then
		echo "retried: FAILED: ${#retry_names[@]} scenarios needed a retry (at most one may): ${!retry_names[*]}" >&2
		rc=1
	fi
	return "$rc"
}

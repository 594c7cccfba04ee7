# Shell helpers shared by the .ci conformance scripts (conformance.sh, conformance-client.sh,
# conformance-replicas.sh). Source it after `cd` to the repository root; it defines functions
# only, and uses the caller's global step_pid.

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

# suite DIR WHO: installs the conformance suite pinned under DIR (npm ci) and sets node (Node
# >= 22: the npm package node-<os>-<arch> when the platform has one, else the machine's) and
# cli (the suite's entry point). WHO prefixes the error. Fails without Node 22.
suite() {
	step timeout 180 npm ci --prefix "$1" --no-audit --no-fund --loglevel=error
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

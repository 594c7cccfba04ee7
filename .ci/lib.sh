# Shell helpers shared by the .ci scripts that run long child processes (conformance.sh,
# conformance-client.sh). Source it after `cd` to the repository root; it defines functions
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

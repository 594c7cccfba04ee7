#!/usr/bin/env bash
# A scripted session against examples/grants/mcpwasm.json: builds mcpwasm and the granted
# example guests from this checkout, then lists and calls tools with the client commands,
# each spawning `mcpwasm serve --config examples/grants/mcpwasm.json` over stdio.
#
#   examples/run.sh
#
# The config grants files.wasm the demo directory examples/grants/data (read-only, at /data
# in the guest; relative paths resolve against the config file), git.wasm two fixed git
# commands on this repository (the repository is passed in GIT_DIR/GIT_WORK_TREE, which the
# exec grants name), and upstream.wasm the upstream server "docs" — `mcpwasm serve` itself,
# whose bundled tools the gateway also re-serves as docs__calc, docs__echo, …
# cmd/mcpwasm's TestExamplesRun runs this script and checks its output.
set -euo pipefail
cd "$(dirname "$0")/.."

# Build: the mcpwasm binary (first on PATH, so the config's upstream command finds it) and
# fetch/git/files/upstream.wasm.
mkdir -p examples/bin
go build -o examples/bin/mcpwasm ./cmd/mcpwasm
export PATH="$PWD/examples/bin:$PATH"
guests/granted.sh examples/grants/guests

# The git guest's repository: this checkout.
GIT_DIR=$(git rev-parse --absolute-git-dir)
GIT_WORK_TREE=$PWD
export GIT_DIR GIT_WORK_TREE

config=examples/grants/mcpwasm.json
# The first start compiles the guests (tens of seconds for Go guests; cached afterwards in
# the user cache directory). Compile them now, outside the client's 30 s connect timeout:
# `serve` loads every guest, then exits at the end of its (empty) input.
echo "run.sh: compiling the guests (the first run only: about 20 s on 2 cores; cached afterwards)" >&2
mcpwasm serve </dev/null 2>/dev/null                       # the bundled guests (the upstream)
mcpwasm serve --config "$config" </dev/null 2>/dev/null     # files, git, upstream

# step prints a command, shell-quoted, runs it and returns its exit code.
step() {
	printf '$'
	for a in "$@"; do
		if [[ $a =~ ^[A-Za-z0-9_./:=-]+$ ]]; then printf ' %s' "$a"; else printf " '%s'" "$a"; fi
	done
	echo
	local rc=0
	"$@" || rc=$?
	echo
	return $rc
}
step mcpwasm tools -- mcpwasm serve --config "$config"
step mcpwasm call read '{"path":"/data/hello.txt"}' -- mcpwasm serve --config "$config"
step mcpwasm call grep '{"pattern":"granted"}' -- mcpwasm serve --config "$config"
# The client passes a spawned server only a minimal environment: --env hands it the two
# variables the git grants name.
step mcpwasm call --env GIT_DIR --env GIT_WORK_TREE git_log '{"max_count":3}' -- mcpwasm serve --config "$config"
step mcpwasm call shout_echo '{"text":"hello through the upstream"}' -- mcpwasm serve --config "$config"
step mcpwasm call docs__calc '{"expression":"6*7"}' -- mcpwasm serve --config "$config"
# A path outside the grant is refused (exit code 4: the tool reported an error).
code=0
step mcpwasm call read '{"path":"/etc/passwd"}' -- mcpwasm serve --config "$config" || code=$?
echo "exit code $code"
[ "$code" -eq 4 ]

#!/usr/bin/env bash
# The tasks soak (bench/cmd/mcpwasm-tasksoak): 20 clients create, poll, answer, cancel and
# abandon tasks for 60 s against a server with a short task TTL; afterwards no task, byte or
# session watcher may be left, the goroutines must be back where they started and every client
# must have been served. RSS is printed, not asserted. Runs once, outside both test passes.
set -euo pipefail
cd "$(dirname "$0")/.."
(cd bench && go run ./cmd/mcpwasm-tasksoak -duration "${TASKSOAK_DURATION:-60s}")

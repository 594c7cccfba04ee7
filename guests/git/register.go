//go:build wasip1

package main

import (
	"encoding/json"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/abi/guest"
)

// readOnly: the tools only read the repository the operator's grants name.
var readOnly = json.RawMessage(`{"readOnlyHint":true,"openWorldHint":false}`)

func init() {
	guest.SetInfo("git", "1.0.0", "Read-only views of a git repository chosen by the operator's exec grants.")
	guest.SetRequests(abi.Requests{Exec: []string{"/usr/bin/git"}})
	guest.AddTool(abi.Tool{
		Name: "git_log", Title: "Git log",
		Description: "Lists the commits reachable from ref (default HEAD), newest first, one \"<short hash> <subject>\" line each, " +
			"at most max_count (default 20). The repository is fixed by the operator.",
		InputSchema: logSchema(),
		Annotations: readOnly,
	}, Log)
	guest.AddTool(abi.Tool{
		Name: "git_status", Title: "Git status",
		Description: "Shows the working tree's changes in git status --short form (XY path per line: ' M' modified, " +
			"'A ' added, '??' untracked, …). The repository is fixed by the operator.",
		Annotations: readOnly,
	}, Status)
}

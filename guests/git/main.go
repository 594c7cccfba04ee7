// Command git is the mcpwasm "git" guest: read-only views of one git repository (git_log,
// git_status) run by the host's exec capability.
//
// It is not served by default. It requests exec ["/usr/bin/git"], and each tool names an
// exec grant that the operator writes, fixing the repository and the subcommand; the guest
// only ever adds positional arguments (the host refuses guest arguments starting with "-"
// unless a grant allows options, and these grants need not). The grants it expects:
//
//	{"name": "git-log",    "path": "/usr/bin/git", "args": ["-C", "/path/to/repo", "log", "--oneline", "--no-decorate", "-n", "200", "--end-of-options"]}
//	{"name": "git-status", "path": "/usr/bin/git", "args": ["-C", "/path/to/repo", "status", "--short"]}
//
// The repository path is the operator's choice. git-log receives one argument, the ref
// (default HEAD), and must print one line per commit (--oneline, or a one-line --format):
// git_log keeps the first max_count lines, so "-n" in the grant is the most max_count can
// show (200 is git_log's own maximum). "--end-of-options" (git 2.24+) makes git read the
// ref as a revision even if it looked like an option — the guest and the host both refuse
// such refs already; this is a third line of defence. git-status receives no arguments.
//
// The tools are registered in init (register.go, wasip1 only): a c-shared module never runs
// main. main exists so the package also builds natively for its unit tests. Build it with
// guests/granted.sh.
package main

//go:generate go run github.com/mcpwasm/mcpwasm/abi/guest/schemagen

func main() {}

// Package sandbox is mcpwasm's security boundary: the complete list of what a guest can reach
// beyond its own linear memory, and the checks on each. A reviewer reads this package, and
// nothing else, to know what a guest can do.
//
// A guest reaches the outside world only through:
//
//   - net: HTTP(S) requests (request kind "http", ABI.md §6.2) to hosts that match a granted
//     host[:port] pattern (hostpattern.go); resolved addresses that are loopback, private,
//     link-local, CGNAT, metadata or mapped forms are refused unless the grant names that IP
//     or "localhost"; the dial is pinned to the checked address and every redirect hop is
//     checked again (net.go);
//   - exec: granted programs by absolute path, never a shell, with fixed leading arguments,
//     option injection refused, a scrubbed environment, a confined working directory, a
//     process group killed with the call, time and output caps (exec.go);
//   - fs: granted host directories mounted at guest paths, read-only unless rw, rooted with
//     os.Root so ".." and symlinks cannot leave them (fs.go); the same mounts serve request
//     kind "fs" (ABI.md §6.9) for engines that import no WASI file functions (fsrequest.go);
//   - env, clock, random: named variables, real time, crypto entropy, fixed when an instance
//     is created (profile.go); without them the environment is empty and the clock and the
//     random source are deterministic;
//   - mcp: tools of named upstream MCP servers (request kinds "mcp.list", "mcp.call",
//     ABI.md §6.5) through the host's client (mcp.go);
//   - sampling, elicitation, roots: requests to the MCP client of the current tool call
//     (request kinds of the same names, ABI.md §6.7) — sampling spends the user's model
//     tokens and elicitation asks the user, so like net and exec they need a grant; the host
//     hands them to the call's peer.Client (client.go) and never to another session's client.
//
// Outside this package a guest has only its own linear memory, the host imports that report
// to the caller (log, progress, cancelled: ABI.md §6), and stdout and stderr, which the host
// captures to its log (OutputBuffer); stdin is empty.
//
// Nothing is granted by default. The operator grants (policy.Grants); a guest's manifest
// requests (abi.Requests); a tool gets the intersection, optionally narrowed per tool with
// policy.Grants.Narrow, which can only remove. NewTool computes that once per tool at load and
// returns a *Tool: its Request method serves every request a running tool makes, and its
// Profile fixes what an instance is created with. Every value that crosses into this package
// is copied: no caller-held slice can change a check after it was made.
package sandbox

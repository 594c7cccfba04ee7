//go:build wasip1

package main

import (
	"encoding/json"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/abi/guest"
)

// Root is where the operator's fs grant mounts the directory this guest serves.
const Root = "/data"

// readOnly: the tools never write, whatever the grant allows.
var readOnly = json.RawMessage(`{"readOnlyHint":true,"idempotentHint":true,"openWorldHint":false}`)

func init() {
	f := Files{Root: Root}
	guest.SetInfo("files", "1.0.0", "Read-only listing, reading and searching of the directory the operator mounts at /data.")
	guest.SetRequests(abi.Requests{FS: []abi.FSRequest{{Path: Root}}})
	guest.AddTool(abi.Tool{
		Name: "list", Title: "List directory",
		Description: "Lists a directory under /data (default /data itself): each entry's name, whether it is a directory, and its size in bytes. Paths are absolute.",
		Annotations: readOnly,
	}, f.List)
	guest.AddTool(abi.Tool{
		Name: "read", Title: "Read file",
		Description: "Returns the text of a UTF-8 file under /data, cut to max_bytes (default 100000) with a note when longer. Directories and binary files are errors.",
		InputSchema: readSchema(),
		Annotations: readOnly,
	}, f.Read)
	guest.AddTool(abi.Tool{
		Name: "grep", Title: "Search files",
		Description: "Searches the files under a directory (default /data) recursively for lines matching a Go RE2 regular expression and returns file, line number and text of each match, " +
			"at most max_matches (default 100). Files over 1 MiB and non-UTF-8 files are skipped; symbolic links are not followed.",
		InputSchema: grepSchema(),
		Annotations: readOnly,
	}, f.Grep)
}

package main

import (
	"fmt"

	"github.com/mcpwasm/mcpwasm/internal/schemaerr"
	"github.com/mcpwasm/mcpwasm/mcpserver"
	"github.com/mcpwasm/mcpwasm/runtime"
)

// toolNameClashes is every tool name that serve could not serve twice: a tool of guests
// claimed by an earlier one (in config order), with status the status tools' names held by a
// guest, and a tool of the whole-server guests servers (as inspect lists them; serve claims
// theirs last) held by an earlier one — by the server's own rule and words
// (mcpserver.NameSet.ClaimGuest, ClaimStatus, ClaimServer). Nil when there is none, the error
// when one, a schemaerr.List (one line each) when several. serve refuses to start on it;
// inspect --config reports it.
func toolNameClashes(guests []*runtime.Guest, status bool, servers ...*serverInspect) error {
	var names mcpserver.NameSet
	var errs schemaerr.List
	for _, g := range guests {
		if err := names.ClaimGuest(g); err != nil {
			errs = append(errs, err)
		}
	}
	if status {
		if err := names.ClaimStatus(); err != nil {
			errs = append(errs, statusError(err))
		}
	}
	for _, si := range servers {
		tools := make([]string, len(si.Tools))
		for i, t := range si.Tools {
			tools[i] = t.Name
		}
		if err := names.ClaimServer(si.Name, si.Source, tools); err != nil {
			errs = append(errs, err)
		}
	}
	return errorList(errs)
}

// statusError is an error of serving the status tools (serve --status, config "status").
func statusError(err error) error { return fmt.Errorf("--status: %w", err) }

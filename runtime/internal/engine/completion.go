package engine

import (
	"context"
	"fmt"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/runtime/internal/kind"
	"github.com/mcpwasm/mcpwasm/runtime/internal/sandbox"
)

// maxCompleteRequestBytes caps the CompleteRequest JSON handed to a guest's
// mcpwasm_complete, in bytes: a completion argument is a partial value a user is typing.
const maxCompleteRequestBytes = 64 << 10

// Completes implements runtime.Guest.Completes, whose doc comment says what it does.
func (g *Guest) Completes() bool { return g.lists().manifest.Completions }

// Complete implements runtime.Guest.Complete, whose doc comment says what it does.
func (g *Guest) Complete(ctx context.Context, req []byte) ([]byte, error) {
	v := g.hold()
	defer v.running.Add(-1)
	if v != g {
		return v.Complete(ctx, req)
	}
	l := g.lists()
	if !l.manifest.Completions {
		return nil, &CallError{g.name, abi.ExportComplete, "", fmt.Errorf("%w: the guest declares no completions", ErrABI)}
	}
	if len(req) > maxCompleteRequestBytes {
		return nil, &CallError{g.name, abi.ExportComplete, "", fmt.Errorf("%w: completion request of %d bytes is over %d", ErrInvalidArguments, len(req), maxCompleteRequestBytes)}
	}
	return g.run(ctx, l.guestPool, kind.EntryComplete, "", l.ownComplete(req), g.limits, l.guest)
}

// ServesResource implements runtime.Guest.ServesResource, whose doc comment says what it does.
func (g *Guest) ServesResource(uri string) bool { return g.lists().served.Serves(uri) }

// resourceUpdated serves request kind resource.updated (ABI.md §6.8): the sandbox checks
// that the guest serves the URI, then the call's ResourceUpdated hook announces it. Each
// announcement is a report of the call like a log line or a progress report, and spends the
// same per-call budget (kind.Budget, ABI.md §6.6): one notification per subscribed session
// is what it costs the host.
func (g *Guest) resourceUpdated(ctx context.Context, c *kind.Call, body []byte) (abi.Status, []byte) {
	uri, st, resp := g.lists().served.Updated(body)
	if st != abi.StatusOK {
		return st, resp
	}
	if !c.Report.Admit(uint32(len(uri))) {
		return abi.StatusTooLarge, sandbox.ErrorBody(fmt.Sprintf(
			"resource.updated: the call's report budget is spent (%d log, progress and resource.updated reports a call, and a per-guest rate)", kind.CallMessages))
	}
	if hk := hooksFrom(ctx); hk != nil && hk.ResourceUpdated != nil {
		hk.ResourceUpdated(uri)
	}
	return st, resp
}

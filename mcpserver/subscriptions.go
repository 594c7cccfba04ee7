package mcpserver

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// subscribe accepts resources/subscribe (MCP 2025-11-25 "Resources › Subscriptions") for a
// URI some guest serves — one of its resources, or a URI matching one of its templates; any
// other URI is the resource-not-found error, whose code protocolMiddleware fits to the
// negotiated revision. The SDK records the subscription per session and sends
// notifications/resources/updated only to subscribed sessions (Server.ResourceUpdated).
func (r *registry) subscribe(_ context.Context, req *mcp.SubscribeRequest) error {
	if r.resource(req.Params.URI) == nil {
		return mcp.ResourceNotFoundError(req.Params.URI)
	}
	return nil
}

// unsubscribe accepts every resources/unsubscribe: unsubscribing from something never
// subscribed is harmless, and the SDK drops the session's subscription.
func unsubscribe(context.Context, *mcp.UnsubscribeRequest) error { return nil }

// resourceUpdatedHook announces a guest's resource.updated request (ABI.md §6.8) to the
// sessions of s subscribed to the URI. It runs while the guest waits, so the notification
// leaves before the tool's result. It is sent without the call's context values: they name
// the calling session's request, and over Streamable HTTP the SDK would look for a stream of
// that request in every subscribed session (and drop the notification) instead of using the
// session's standalone stream. The call's deadline and cancellation still apply.
func resourceUpdatedHook(ctx context.Context, s *mcp.Server) func(uri string) {
	return func(uri string) {
		nctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		stop := context.AfterFunc(ctx, cancel)
		defer stop()
		_ = s.ResourceUpdated(nctx, &mcp.ResourceUpdatedNotificationParams{URI: uri})
	}
}

package guest

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/mcpwasm/mcpwasm/abi"
)

// CompletionHandler completes one argument of a prompt or resource template (MCP
// "Utilities › Completion"): req.Argument is the argument and what the user typed so far,
// req.Context the arguments already filled in. Return at most abi.MaxCompletionValues values
// (the host cuts longer lists and sets HasMore). Wrap ErrInvalidArguments for an argument
// the prompt or template does not have (-32602).
type CompletionHandler func(ctx context.Context, req abi.CompleteRequest) (*abi.Completion, error)

var completers = struct {
	prompts   map[string]CompletionHandler // by prompt name
	resources map[string]CompletionHandler // by URI template
}{prompts: map[string]CompletionHandler{}, resources: map[string]CompletionHandler{}}

// CompletePrompt registers h to complete the arguments of prompt name (registered with
// AddPrompt) and declares completions in the manifest (ABI.md §2.5).
func CompletePrompt(name string, h CompletionHandler) {
	completers.prompts[name] = h
	reg.manifest.Completions = true
}

// CompleteResourceTemplate registers h to complete the variables of the resource template
// uriTemplate (registered with AddResourceTemplate) and declares completions in the manifest.
func CompleteResourceTemplate(uriTemplate string, h CompletionHandler) {
	completers.resources[uriTemplate] = h
	reg.manifest.Completions = true
}

// complete answers mcpwasm_complete. A prompt or template without a handler gets no values.
func complete(in []byte) []byte {
	var req abi.CompleteRequest
	if err := json.Unmarshal(in, &req); err != nil {
		return failure(fmt.Errorf("%w: %v", ErrInvalidArguments, err))
	}
	var h CompletionHandler
	switch req.Ref.Type {
	case abi.RefPrompt:
		h = completers.prompts[req.Ref.Name]
	case abi.RefResource:
		h = completers.resources[req.Ref.URI]
	}
	c := &abi.Completion{}
	if h != nil {
		var err error
		if c, err = h(context.Background(), req); err != nil {
			return failure(err)
		}
	}
	if c.Values == nil {
		c.Values = []string{}
	}
	b, err := marshal(abi.CompleteResult{Completion: *c})
	if err != nil {
		return failure(err)
	}
	return b
}

// ResourceUpdated tells the host that resource uri changed (request kind resource.updated,
// ABI.md §6.8); the host sends notifications/resources/updated to the sessions subscribed to
// it. uri must be a resource of this guest or match one of its templates, else the host
// answers DENIED (*RequestError). Only a running tool may call it.
func ResourceUpdated(uri string) error {
	b, err := json.Marshal(abi.ResourceUpdatedRequest{URI: uri})
	if err != nil {
		return err
	}
	_, err = Request(abi.KindResourceUpdated, b)
	return err
}

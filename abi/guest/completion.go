package guest

import (
	"context"
	"reflect"
	"strings"

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
	if err := decodeCompleteRequest(in, &req); err != nil {
		return failure(&wrapped{ErrInvalidArguments.Error() + ": " + err.Error(), ErrInvalidArguments})
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
	return encodeCompletion(c)
}

// completeRequestNode returns the decNode of abi.CompleteRequest, built on first use.
func completeRequestNode() *decNode {
	if completeReqNode == nil {
		completeReqNode = buildNode(reflect.TypeFor[abi.CompleteRequest]())
	}
	return completeReqNode
}

var completeReqNode *decNode

// buildNode describes t for decodeInto: t is made of structs (exported fields, json tags, no
// embedding), pointers to structs, map[string]string and scalars, as abi's request types are.
func buildNode(t reflect.Type) *decNode {
	n := &decNode{t: t, kind: t.Kind()}
	switch t.Kind() {
	case reflect.Struct:
		for i := range t.NumField() {
			f := t.Field(i)
			tag := f.Tag.Get("json")
			if !f.IsExported() || tag == "-" {
				continue
			}
			key, _, _ := strings.Cut(tag, ",")
			if key == "" {
				key = f.Name
			}
			n.fields = append(n.fields, decField{key: key, folded: string(foldName([]byte(key))), offset: f.Offset,
				node: buildNode(f.Type)})
		}
	case reflect.Pointer, reflect.Map:
		n.elem = buildNode(t.Elem())
	}
	return n
}

// ResourceUpdated tells the host that resource uri changed (request kind resource.updated,
// ABI.md §6.8); the host sends notifications/resources/updated to the sessions subscribed to
// it. uri must be a resource of this guest or match one of its templates, else the host
// answers DENIED (*RequestError). Only a running tool may call it.
func ResourceUpdated(uri string) error {
	// As json.Marshal(abi.ResourceUpdatedRequest{URI: uri}) writes it.
	b := append(appendStringHTML([]byte(`{"uri":`), uri), '}')
	_, err := Request(abi.KindResourceUpdated, b)
	return err
}

package abi

// ExportComplete is the optional export that completes prompt and resource-template
// arguments (ABI.md §2.5): (req_ptr, req_len i32) -> i64 packed CompleteResult. A guest whose
// manifest sets Completions must export it.
const ExportComplete = "mcpwasm_complete"

// MaxCompletionValues is the most values a completion may carry (MCP 2025-11-25 "Utilities ›
// Completion": "Maximum 100 items").
const MaxCompletionValues = 100

// Reference types of a CompleteRequest (MCP "Utilities › Completion").
const (
	RefPrompt   = "ref/prompt"
	RefResource = "ref/resource"
)

// CompleteRequest is the input of mcpwasm_complete: which prompt or resource template
// (Ref), which argument and its partial value (Argument), and the arguments already resolved
// (Context). It is MCP's CompleteRequest params.
type CompleteRequest struct {
	Ref      CompleteRef      `json:"ref"`
	Argument CompleteArgument `json:"argument"`
	Context  *CompleteContext `json:"context,omitempty"`
}

// CompleteRef names a prompt (Type RefPrompt, Name) or a resource template (Type
// RefResource, URI is the template as the manifest spells it).
type CompleteRef struct {
	Type string `json:"type"`
	Name string `json:"name,omitempty"`
	URI  string `json:"uri,omitempty"`
}

// CompleteArgument is the argument being completed and what the user typed so far.
type CompleteArgument struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// CompleteContext holds the values of the arguments already filled in.
type CompleteContext struct {
	Arguments map[string]string `json:"arguments,omitempty"`
}

// CompleteResult is what mcpwasm_complete returns: an MCP CompleteResult. Values holds at
// most MaxCompletionValues entries; Total (optional) counts all matches; HasMore says there
// are more than Values. On failure the guest returns an ErrorBody instead (Code -32602 for an
// unknown argument).
type CompleteResult struct {
	Completion Completion `json:"completion"`
}

// Completion is the completion of one argument.
type Completion struct {
	Values  []string `json:"values"`
	Total   int      `json:"total,omitempty"`
	HasMore bool     `json:"hasMore,omitempty"`
}

// KindResourceUpdated is the request kind by which a running tool reports that a resource
// of its own guest changed (ABI.md §6.8). Body ResourceUpdatedRequest; the OK answer is {}.
// It needs no grant, but the URI must be one the guest serves (a resource of its manifest
// or a URI matching one of its resource templates), else DENIED.
const KindResourceUpdated = "resource.updated"

// ResourceUpdatedRequest is the body of a KindResourceUpdated request.
type ResourceUpdatedRequest struct {
	URI string `json:"uri"`
}

package sandbox

import (
	"encoding/json"
	"fmt"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/yosida95/uritemplate/v3"
)

// Resources is the set of resource URIs one guest serves: the fixed URIs of its manifest and
// every URI matching one of its RFC 6570 resource templates. It decides the one request kind
// that needs no grant, resource.updated (ABI.md §6.8): a guest may announce changes to its
// own resources only. A Resources is immutable and safe for concurrent use.
type Resources struct {
	guest     string
	uris      map[string]bool
	templates []*uritemplate.Template
}

// NewResources returns the resources guest serves. It fails, naming the template, if a
// template is not a valid RFC 6570 URI template.
func NewResources(guest string, uris, templates []string) (*Resources, error) {
	r := &Resources{guest: guest, uris: make(map[string]bool, len(uris))}
	for _, u := range uris {
		r.uris[u] = true
	}
	for _, t := range templates {
		tt, err := uritemplate.New(t)
		if err != nil {
			return nil, fmt.Errorf("resource template %q: %w", t, err)
		}
		r.templates = append(r.templates, tt)
	}
	return r, nil
}

// Serves reports whether uri is one of the fixed URIs or matches one of the templates
// (RFC 6570 §1.5 "reverse" matching, as the MCP SDK routes resources/read). A nil Resources
// serves nothing.
func (r *Resources) Serves(uri string) bool {
	if r == nil {
		return false
	}
	if r.uris[uri] {
		return true
	}
	for _, t := range r.templates {
		if t.Regexp().MatchString(uri) {
			return true
		}
	}
	return false
}

// Updated checks the body of a resource.updated request (abi.ResourceUpdatedRequest) and
// returns the URI to announce with StatusOK and "{}", or INVALID (bad JSON, empty URI) or
// DENIED (a URI the guest does not serve) with an abi.ErrorBody.
func (r *Resources) Updated(body []byte) (uri string, st abi.Status, resp []byte) {
	var req abi.ResourceUpdatedRequest
	if err := json.Unmarshal(body, &req); err != nil {
		return "", abi.StatusInvalid, ErrorBody("resource.updated: bad request body: " + clip(err.Error()))
	}
	if req.URI == "" {
		return "", abi.StatusInvalid, ErrorBody(`resource.updated: "uri" is required`)
	}
	if !r.Serves(req.URI) {
		name := ""
		if r != nil {
			name = r.guest
		}
		return "", abi.StatusDenied, ErrorBody(fmt.Sprintf("resource.updated: guest %q does not serve resource %q", name, clip(req.URI)))
	}
	return req.URI, abi.StatusOK, []byte("{}")
}

package guest

import (
	"context"
	"errors"
	"strconv"
	"strings"

	"github.com/mcpwasm/mcpwasm/abi"
)

// ResourceHandler reads one resource. uri is the URI the client asked for (one of the
// guest's resources, or one matching a resource template).
type ResourceHandler func(ctx context.Context, uri string) (*abi.ResourceResult, error)

// PromptHandler renders one prompt with the client's arguments.
type PromptHandler func(ctx context.Context, args map[string]string) (*abi.PromptResult, error)

// ErrResourceNotFound, returned (or wrapped) by a ResourceHandler, answers the client with
// MCP's "resource not found" error (-32002).
var ErrResourceNotFound = errors.New("resource not found")

// ErrInvalidArguments, returned (or wrapped) by a PromptHandler, answers the client with
// JSON-RPC invalid params (-32602).
var ErrInvalidArguments = errors.New("invalid arguments")

var features = struct {
	resources map[string]ResourceHandler // by URI
	templates []ResourceHandler          // parallel to manifest.ResourceTemplates; first match wins
	prompts   map[string]PromptHandler
}{resources: map[string]ResourceHandler{}, prompts: map[string]PromptHandler{}}

// AddResource registers a fixed resource (ABI.md §2.4).
func AddResource(r abi.Resource, h ResourceHandler) {
	if _, dup := features.resources[r.URI]; dup {
		panic("guest: resource " + strconv.Quote(r.URI) + " registered twice")
	}
	reg.manifest.Resources = append(reg.manifest.Resources, r)
	features.resources[r.URI] = h
}

// AddResourceTemplate registers a family of resources by RFC 6570 URI template. The host
// routes a read to it only for URIs that match; h receives the concrete URI.
func AddResourceTemplate(t abi.ResourceTemplate, h ResourceHandler) {
	reg.manifest.ResourceTemplates = append(reg.manifest.ResourceTemplates, t)
	features.templates = append(features.templates, h)
}

// AddPrompt registers a prompt (ABI.md §2.4).
func AddPrompt(p abi.Prompt, h PromptHandler) {
	if _, dup := features.prompts[p.Name]; dup {
		panic("guest: prompt " + strconv.Quote(p.Name) + " registered twice")
	}
	reg.manifest.Prompts = append(reg.manifest.Prompts, p)
	features.prompts[p.Name] = h
}

// read answers mcpwasm_read.
func read(uri string) []byte {
	h, ok := features.resources[uri]
	if !ok && len(features.templates) == 1 {
		h, ok = features.templates[0], true
	}
	if !ok && len(features.templates) > 1 {
		for i, t := range reg.manifest.ResourceTemplates {
			if templateMatches(t.URITemplate, uri) {
				h, ok = features.templates[i], true
				break
			}
		}
	}
	if !ok {
		return failure(&wrapped{ErrResourceNotFound.Error() + ": " + uri, ErrResourceNotFound})
	}
	res, err := h(context.Background(), uri)
	if err != nil {
		return failure(err)
	}
	return encodeResourceResult(res)
}

// prompt answers mcpwasm_prompt.
func prompt(name string, args []byte) []byte {
	h, ok := features.prompts[name]
	if !ok {
		return failure(&wrapped{ErrInvalidArguments.Error() + ": unknown prompt " + strconv.Quote(name), ErrInvalidArguments})
	}
	var m map[string]string
	if err := decodePromptArgs(args, &m); err != nil {
		return failure(&wrapped{ErrInvalidArguments.Error() + ": " + err.Error(), ErrInvalidArguments})
	}
	res, err := h(context.Background(), m)
	if err != nil {
		return failure(err)
	}
	return encodePromptResult(res)
}

func failure(err error) []byte {
	code := abi.CodeInternalError
	switch {
	case errors.Is(err, ErrResourceNotFound):
		code = abi.CodeResourceNotFound
	case errors.Is(err, ErrInvalidArguments):
		code = abi.CodeInvalidParams
	}
	return encodeErrorBody(err.Error(), code)
}

// templateMatches reports whether uri could come from template: literal parts must match in
// order; each {expression} matches any run of characters. Enough to pick among templates
// with distinct literal prefixes; the host has already matched the URI properly.
func templateMatches(template, uri string) bool {
	for template != "" {
		i := strings.IndexByte(template, '{')
		if i < 0 {
			return template == uri
		}
		lit := template[:i]
		if len(uri) < len(lit) || uri[:len(lit)] != lit {
			return false
		}
		uri = uri[len(lit):]
		j := strings.IndexByte(template[i:], '}')
		if j < 0 {
			return false
		}
		template = template[i+j+1:]
		next := template
		if k := strings.IndexByte(next, '{'); k >= 0 {
			next = next[:k]
		}
		if next == "" {
			if template == "" {
				return true
			}
			continue
		}
		k := strings.Index(uri, next)
		if k < 0 {
			return false
		}
		uri = uri[k:]
	}
	return uri == ""
}

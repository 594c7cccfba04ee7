package upstream

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// DefaultMaxPages is the page cap of the list helpers when none is given.
const DefaultMaxPages = 100

// ListTools returns every tool of the server behind cs, following nextCursor (MCP spec
// 2025-11-25 "Utilities › Pagination") for at most maxPages pages (0 means DefaultMaxPages).
// A cursor the server already sent ends the walk (a server looping would otherwise never
// stop), as does the cap; both are logged to logger (nil discards) and what was collected is
// returned. A tool name seen twice keeps its first definition.
func ListTools(ctx context.Context, cs *mcp.ClientSession, maxPages int, logger *slog.Logger) ([]*mcp.Tool, error) {
	return listAll(ctx, "tools/list", maxPages, logger, func(ctx context.Context, cursor string) ([]*mcp.Tool, string, error) {
		r, err := cs.ListTools(ctx, &mcp.ListToolsParams{Cursor: cursor})
		if err != nil {
			return nil, "", err
		}
		return r.Tools, r.NextCursor, nil
	}, func(t *mcp.Tool) string { return t.Name })
}

// listResources is ListTools for resources/list; resources are keyed by URI.
func listResources(ctx context.Context, cs *mcp.ClientSession, maxPages int, logger *slog.Logger) ([]*mcp.Resource, error) {
	return listAll(ctx, "resources/list", maxPages, logger, func(ctx context.Context, cursor string) ([]*mcp.Resource, string, error) {
		r, err := cs.ListResources(ctx, &mcp.ListResourcesParams{Cursor: cursor})
		if err != nil {
			return nil, "", err
		}
		return r.Resources, r.NextCursor, nil
	}, func(r *mcp.Resource) string { return r.URI })
}

// listPrompts is ListTools for prompts/list; prompts are keyed by name.
func listPrompts(ctx context.Context, cs *mcp.ClientSession, maxPages int, logger *slog.Logger) ([]*mcp.Prompt, error) {
	return listAll(ctx, "prompts/list", maxPages, logger, func(ctx context.Context, cursor string) ([]*mcp.Prompt, string, error) {
		r, err := cs.ListPrompts(ctx, &mcp.ListPromptsParams{Cursor: cursor})
		if err != nil {
			return nil, "", err
		}
		return r.Prompts, r.NextCursor, nil
	}, func(p *mcp.Prompt) string { return p.Name })
}

func listAll[T any](ctx context.Context, method string, maxPages int, logger *slog.Logger,
	page func(ctx context.Context, cursor string) ([]*T, string, error), key func(*T) string) ([]*T, error) {
	if maxPages <= 0 {
		maxPages = DefaultMaxPages
	}
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	var out []*T
	seen := map[string]bool{}
	cursors := map[string]bool{"": true}
	cursor := ""
	for n := 1; ; n++ {
		items, next, err := page(ctx, cursor)
		if err != nil {
			return nil, err
		}
		for _, it := range items {
			if it == nil {
				continue
			}
			if k := key(it); !seen[k] {
				seen[k] = true
				out = append(out, it)
			} else {
				logger.Warn("upstream: duplicate list entry dropped", "method", method, "key", k)
			}
		}
		switch {
		case next == "":
			return out, nil
		case cursors[next]:
			logger.Warn("upstream: server repeated a cursor; list ends here", "method", method, "cursor", next, "pages", n)
			return out, nil
		case n >= maxPages:
			logger.Warn("upstream: page cap reached; list ends here", "method", method, "pages", n)
			return out, nil
		}
		cursors[next] = true
		cursor = next
	}
}

// AllTools lists every tool of s's server (see ListTools), with s's page cap and logger.
func (s *Session) AllTools(ctx context.Context) ([]*mcp.Tool, error) {
	return ListTools(ctx, s.ClientSession, s.maxPages, s.logger)
}

// AllToolsTaskSupport is AllTools with the execution.taskSupport of each tool as listed, by
// tool name ("" or absent: the server said nothing, MCP's "forbidden"): the SDK's Tool has no
// "execution", so each page is also read as the server sent it. A pin of an upstream tool
// (mcpserver.PinTool) covers both.
func (s *Session) AllToolsTaskSupport(ctx context.Context) ([]*mcp.Tool, map[string]string, error) {
	support := map[string]string{}
	if s.raw == nil {
		list, err := s.AllTools(ctx)
		return list, support, err
	}
	list, err := listAll(ctx, "tools/list", s.maxPages, s.logger, func(ctx context.Context, cursor string) ([]*mcp.Tool, string, error) {
		token := NewProgressToken()
		s.raw.expect(token, nil)
		p := &mcp.ListToolsParams{Cursor: cursor}
		p.SetProgressToken(token)
		r, err := s.ListTools(ctx, p)
		raw := s.raw.take(token)
		if err != nil {
			return nil, "", err
		}
		if raw == nil { // not recorded: the SDK's page, no task support known
			return r.Tools, r.NextCursor, nil
		}
		// The page as sent (the SDK was handed it without some members: exact.go).
		var page struct {
			Tools      []*mcp.Tool `json:"tools"`
			NextCursor string      `json:"nextCursor"`
		}
		var exec struct {
			Tools []struct {
				Name      string `json:"name"`
				Execution *struct {
					TaskSupport string `json:"taskSupport"`
				} `json:"execution"`
			} `json:"tools"`
		}
		if err := json.Unmarshal(raw, &page); err != nil {
			return nil, "", fmt.Errorf("tools/list: %w", err)
		}
		if json.Unmarshal(raw, &exec) == nil {
			for _, t := range exec.Tools {
				if _, seen := support[t.Name]; !seen && t.Execution != nil {
					support[t.Name] = t.Execution.TaskSupport
				}
			}
		}
		return page.Tools, page.NextCursor, nil
	}, func(t *mcp.Tool) string { return t.Name })
	if err != nil {
		return nil, nil, err
	}
	return list, support, nil
}

// AllResources lists every resource of s's server (see listResources).
func (s *Session) AllResources(ctx context.Context) ([]*mcp.Resource, error) {
	return listResources(ctx, s.ClientSession, s.maxPages, s.logger)
}

// AllPrompts lists every prompt of s's server (see listPrompts).
func (s *Session) AllPrompts(ctx context.Context) ([]*mcp.Prompt, error) {
	return listPrompts(ctx, s.ClientSession, s.maxPages, s.logger)
}

// listResourceTemplates is ListTools for resources/templates/list; templates are keyed by
// URI template.
func listResourceTemplates(ctx context.Context, cs *mcp.ClientSession, maxPages int, logger *slog.Logger) ([]*mcp.ResourceTemplate, error) {
	return listAll(ctx, "resources/templates/list", maxPages, logger, func(ctx context.Context, cursor string) ([]*mcp.ResourceTemplate, string, error) {
		r, err := cs.ListResourceTemplates(ctx, &mcp.ListResourceTemplatesParams{Cursor: cursor})
		if err != nil {
			return nil, "", err
		}
		return r.ResourceTemplates, r.NextCursor, nil
	}, func(t *mcp.ResourceTemplate) string { return t.URITemplate })
}

// AllResourceTemplates lists every resource template of s's server (see
// listResourceTemplates).
func (s *Session) AllResourceTemplates(ctx context.Context) ([]*mcp.ResourceTemplate, error) {
	return listResourceTemplates(ctx, s.ClientSession, s.maxPages, s.logger)
}

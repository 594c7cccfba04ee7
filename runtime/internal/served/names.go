package served

import (
	"fmt"
	"slices"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/internal/names"
)

// Rename is one tool or prompt of a foreign guest served under another name than it declares.
type Rename struct {
	What   string // "tool" or "prompt"
	Own    string // as the guest declares it
	Served string
}

// Names returns m as g serves it — each tool's and prompt's name after prefix
// (GuestConfig.ToolPrefix; resource URIs and templates are never rewritten: a URI is a
// reference the guest hands out) and, when foreign, each tool and prompt name outside abi.NamePattern mapped by names.MapName —
// with own, the declared name of each tool and prompt served under another name (keyed by
// what+":"+served), and the renames made by the mapping. Two declared names served alike are
// an error naming both.
func Names(m *abi.Manifest, prefix string, foreign bool) (*abi.Manifest, map[string]string, []Rename, error) {
	if prefix == "" && !foreign {
		return m, nil, nil, nil
	}
	out := *m
	seen := map[string]string{} // what+":"+served → declared
	own := map[string]string{}
	var renames []Rename
	serve := func(what, name string) (string, error) {
		served := prefix + name
		if foreign && !abi.ValidName(served) {
			mapped := names.MapName(served)
			renames = append(renames, Rename{what, name, mapped})
			served = mapped
		}
		key := what + ":" + served
		if prev, ok := seen[key]; ok && prev != name {
			return "", fmt.Errorf("%ss %q and %q are both served as %q (a name outside %s is served with \"_\" for other characters and a hash of it at the end); rename one of them",
				what, prev, name, served, abi.NamePattern)
		}
		seen[key] = name
		if served != name {
			own[key] = name
		}
		return served, nil
	}
	out.Tools = slices.Clone(m.Tools)
	for i := range out.Tools {
		served, err := serve("tool", out.Tools[i].Name)
		if err != nil {
			return nil, nil, nil, err
		}
		out.Tools[i].Name = served
	}
	if foreign || prefix != "" {
		out.Prompts = slices.Clone(m.Prompts)
		for i := range out.Prompts {
			served, err := serve("prompt", out.Prompts[i].Name)
			if err != nil {
				return nil, nil, nil, err
			}
			out.Prompts[i].Name = served
		}
	}
	return &out, own, renames, nil
}

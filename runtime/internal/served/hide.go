// Package served owns the names a guest's manifest is served under: the tools hidden by
// GuestConfig.HideTools (Hide, HidePatterns), the ToolPrefix, and a foreign kind's names
// outside abi.NamePattern mapped by names.MapName (Names, Rename). It works on an
// abi.Manifest only: it may import abi and internal/names, nothing else of ours.
package served

import (
	"fmt"
	"regexp"
	"slices"

	"github.com/mcpwasm/mcpwasm/abi"
)

// HidePatterns compiles GuestConfig.HideTools: each pattern must match a declared tool name
// whole (it is anchored as ^(?:PATTERN)$, as hyper-mcp anchors skip_tools). Errors name the
// pattern.
func HidePatterns(patterns []string) ([]*regexp.Regexp, error) {
	out := make([]*regexp.Regexp, 0, len(patterns))
	for _, p := range patterns {
		re, err := regexp.Compile("^(?:" + p + ")$")
		if err != nil {
			return nil, fmt.Errorf("hide_tools pattern %q: %w", p, err)
		}
		out = append(out, re)
	}
	return out, nil
}

// Hide returns m without the tools whose declared name (before ToolPrefix and any name
// mapping) one of patterns matches whole, and their names; m itself is not changed. A hidden
// tool is neither listed nor callable, as if the guest did not declare it.
func Hide(m *abi.Manifest, patterns []string) (*abi.Manifest, []string) {
	if len(patterns) == 0 {
		return m, nil
	}
	res, _ := HidePatterns(patterns) // Validate compiled them
	var hidden []string
	out := *m
	out.Tools = slices.DeleteFunc(slices.Clone(m.Tools), func(t abi.Tool) bool {
		if slices.ContainsFunc(res, func(re *regexp.Regexp) bool { return re.MatchString(t.Name) }) {
			hidden = append(hidden, t.Name)
			return true
		}
		return false
	})
	if hidden == nil {
		return m, nil
	}
	return &out, hidden
}

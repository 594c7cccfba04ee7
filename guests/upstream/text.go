package main

import (
	"strings"

	"github.com/mcpwasm/mcpwasm/abi"
)

// Texts joins the text blocks of a tool result with newlines; other blocks are skipped.
func Texts(r *abi.Result) string {
	var parts []string
	for _, c := range r.Content {
		if c.Type == "text" {
			parts = append(parts, c.Text)
		}
	}
	return strings.Join(parts, "\n")
}

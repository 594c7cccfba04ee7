package main

import "github.com/mcpwasm/mcpwasm/abi"

func textContent(s string) abi.Content { return abi.Content{Type: "text", Text: s} }

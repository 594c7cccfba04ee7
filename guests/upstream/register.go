//go:build wasip1

package main

import (
	"context"
	"encoding/json"
	"errors"
	"strings"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/abi/guest"
)

// server is the upstream's name in the operator's config.
const server = "docs"

type shoutIn struct {
	Text string `json:"text" jsonschema:"text to echo through the upstream server and upper-case"`
}

type listIn struct{}

func init() {
	guest.SetInfo("upstream", "1.0.0", "Calls tools of the upstream MCP server \"docs\" and post-processes their results.")
	guest.SetRequests(abi.Requests{MCP: []string{server}})
	guest.AddTool(abi.Tool{
		Name: "shout_echo", Title: "Shout echo",
		Description: "Calls the echo tool of the upstream server \"docs\" and returns its text upper-cased.",
		Annotations: json.RawMessage(`{"readOnlyHint":true}`),
	}, shoutEcho)
	guest.AddTool(abi.Tool{
		Name: "upstream_tools", Title: "Upstream tools",
		Description: "Lists the tool names of the upstream server \"docs\", one per line.",
		Annotations: json.RawMessage(`{"readOnlyHint":true}`),
	}, upstreamTools)
}

func shoutEcho(ctx context.Context, in shoutIn) (string, error) {
	res, err := guest.MCPCall(server, "echo", map[string]string{"text": in.Text})
	if err != nil {
		return "", err
	}
	text := Texts(res)
	if res.IsError {
		return "", errors.New("upstream echo failed: " + text)
	}
	return strings.ToUpper(text), nil
}

func upstreamTools(ctx context.Context, _ listIn) (string, error) {
	tools, err := guest.MCPList(server)
	if err != nil {
		return "", err
	}
	names := make([]string, 0, len(tools))
	for _, t := range tools {
		var v struct {
			Name string `json:"name"`
		}
		if json.Unmarshal(t, &v) == nil {
			names = append(names, v.Name)
		}
	}
	return strings.Join(names, "\n"), nil
}

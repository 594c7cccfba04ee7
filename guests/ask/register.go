//go:build wasip1

package main

import (
	"encoding/json"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/abi/guest"
)

func init() {
	guest.SetInfo("ask", "1.0.0", "Tools that ask the MCP client: its model (sampling), its user (elicitation), its roots.")
	guest.SetRequests(abi.Requests{Sampling: true, Elicitation: true, Roots: true})
	guest.AddTool(abi.Tool{Name: "summarize", Title: "Summarize",
		Description: "Summarizes text in one sentence with the client's model (MCP sampling).",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`),
	}, Summarize)
	guest.AddTool(abi.Tool{Name: "confirm", Title: "Confirm",
		Description: "Asks the user a yes/no question (MCP elicitation) and returns the answer.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"question":{"type":"string"}},"required":["question"]}`),
	}, Confirm)
	guest.AddTool(abi.Tool{Name: "draft", Title: "Draft and approve",
		Description: "Drafts text about a topic with the client's model, then asks the user to approve it.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"topic":{"type":"string"}},"required":["topic"]}`),
	}, Draft)
	guest.AddTool(abi.Tool{Name: "roots", Title: "Client roots",
		Description: "Lists the client's roots.",
		InputSchema: json.RawMessage(`{"type":"object"}`),
	}, ListRoots)
}

//go:build wasip1

package main

import (
	"encoding/json"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/abi/guest"
)

func init() {
	guest.SetInfo("llm", "1.0.0", "Asks a language model (an OpenAI-compatible endpoint the operator grants) and checks its answers: consensus voting and a bounded reason-act loop with a calculator.")
	// Any host (the operator's net grant names the endpoint's), the three configuration
	// variables, and a real clock to wait before retries (see main.go).
	// MCP sampling is tried first (mcpsampler.go).
	guest.SetRequests(abi.Requests{Net: []string{"*:*"}, Env: []string{EnvBaseURL, EnvModel, EnvAPIKey}, Clock: true, Sampling: true})
	annotations := json.RawMessage(`{"readOnlyHint":true,"idempotentHint":false,"openWorldHint":true}`)
	guest.AddTool(abi.Tool{
		Name: "consensus", Title: "Model consensus",
		Description: "Asks the model the same prompt n times (1-9, default 3) and returns the answer the samples agree on, " +
			"with the agreement ratio. Answers are compared ignoring case and whitespace. strategy majority (default) takes the " +
			"most frequent answer; unanimous fails, listing the answers, unless all agree.",
		InputSchema: consensusInput, OutputSchema: consensusOutput, Annotations: annotations,
	}, Consensus)
	guest.AddTool(abi.Tool{
		Name: "react_loop", Title: "Reason-act loop",
		Description: "Lets the model work on a task for at most max_rounds replies (1-8, default 4), using only two built-in " +
			"tools: calc (arithmetic, no eval) and echo. Returns the final answer and the trace of rounds.",
		InputSchema: reactInput, OutputSchema: reactOutput, Annotations: annotations,
	}, React)
}

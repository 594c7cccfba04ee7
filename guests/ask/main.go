// Command ask is the mcpwasm "ask" guest: tools that ask the MCP client of the current call
// (ABI.md §6.7) instead of doing the work themselves.
//
//   - summarize asks the client's model for a one-sentence summary of text (sampling).
//   - confirm asks the user a yes/no question (elicitation, form mode) and reports the answer.
//   - draft asks the model for a draft and then asks the user to approve it (sampling, then
//     elicitation): two client requests in one call, so over MCP 2026-07-28 it takes two
//     input-required rounds.
//   - roots lists the client's roots (roots).
//
// It is not served by default: it requests the sampling, elicitation and roots grants, which
// the operator gives in a config's "grants" ({"sampling": true, "elicitation": true,
// "roots": true}). Build it with guests/granted.sh.
//
// The tools are registered in init (register.go, wasip1 only): a c-shared module never runs
// main. main exists so the package also builds natively for its unit tests.
package main

func main() {}

// Command llm is the mcpwasm "llm" guest: two tools that ask a language model and check
// its answers.
//
//   - consensus samples the same prompt n times (1–9, default 3) and returns the answer the
//     samples agree on, with the agreement ratio. Answers are compared after collapsing
//     whitespace and case. Strategy "majority" takes the most frequent answer (a tie is
//     broken by one more request asking the model to pick a number); "unanimous" requires
//     every sample to agree and is otherwise a tool error listing the answers.
//   - react_loop runs a bounded reason–act loop (1–8 rounds, default 4) whose only inner
//     tools are calc (the calc guest's parser, package guests/calc/expr — never eval) and
//     echo. The model cannot register tools. It must answer in the text protocol of
//     react.go (Thought / Action: calc: … / Action: echo: … / Final: …), parsed strictly;
//     each round reports progress, and a cancelled call stops between rounds.
//
// # Where the model comes from
//
// Every model request goes through the Sampler interface (sampler.go). There are two:
//
//   - MCP sampling (mcpsampler.go): sampling/createMessage sent to the client of the current
//     call through the host (request kind sampling, abi/ABI.md §6.7). It is used first; it
//     needs the operator's "sampling" grant and a client that declares sampling.
//
//   - An OpenAI-compatible chat-completions endpoint (POST {base}/chat/completions) reached
//     with the host's http request kind, configured by environment variables the operator
//     grants:
//
//     MCPWASM_LLM_BASE_URL  required, e.g. https://api.openai.com/v1 or http://localhost:11434/v1
//     MCPWASM_LLM_MODEL     required, e.g. gpt-4o-mini
//     MCPWASM_LLM_API_KEY   optional; sent as "Authorization: Bearer …" when set
//
// When MCP sampling is refused (not granted: DENIED; the client cannot sample: UNAVAILABLE)
// the call uses the endpoint from then on. The manifest requests sampling, net "*:*" (any
// host: the operator's net grant names the endpoint's host), those three env names, and
// clock. With neither, the guest still loads and lists its tools; a call is a tool error
// naming each missing variable, the grant to add, and why sampling was refused.
//
// Over MCP 2026-07-28 each sample is one input-required round (the guest runs again with
// the answers so far), so a call takes n+1 rounds (plus one for a tie-break); the host caps
// a call at 16 client requests.
//
// # Retries and the clock
//
// A 429 or 5xx answer (but 501) is retried, at most 3 attempts per model request, after
// the server's Retry-After (delta-seconds) or else 0.5 s then 1 s. One tool call waits at
// most 10 s in total over all its requests; a wait that does not fit is not taken and the
// call fails at once with the server's figure, so retries stay inside the call's time limit
// (30 s by default). Waiting needs real time: only with the clock grant does
// the guest sleep (in 100 ms slices, stopping if the call is cancelled). Without it the
// clock is deterministic and a sleep would return at once, so the guest retries only what
// may be retried immediately (Retry-After: 0) and otherwise fails with the status and a
// note that granting clock lets it wait.
//
// The tools are registered in init (register.go, wasip1 only): a c-shared module never
// runs main. main exists so the package also builds natively for its unit tests. Build the
// module with guests/granted.sh.
package main

func main() {}

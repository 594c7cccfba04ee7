package main

import "encoding/json"

// The tools' schemas, written out rather than inferred: their descriptions carry the
// bounds, and a module built without schema inference needs them anyway. n and max_rounds
// have no minimum or maximum on purpose: out-of-range values are clamped, not refused.
var (
	consensusInput = json.RawMessage(`{"type":"object","additionalProperties":false,"required":["prompt"],"properties":{` +
		`"prompt":{"type":"string","description":"the question to ask the model (at most 32768 bytes)"},` +
		`"n":{"type":"integer","default":3,"description":"how many answers to sample; clamped to 1 through 9"},` +
		`"strategy":{"type":"string","enum":["majority","unanimous"],"default":"majority","description":"majority: the most frequent answer wins (a tie is broken by asking the model to pick); unanimous: every answer must agree, else a tool error listing them"},` +
		`"temperature":{"type":"number","minimum":0,"maximum":2,"description":"sampling temperature, 0 to 2; the model's default when absent"}}}`)
	consensusOutput = json.RawMessage(`{"type":"object","required":["answer","agreement","votes","n","strategy","answers"],"properties":{` +
		`"answer":{"type":"string","description":"the agreed answer, as first sampled"},` +
		`"agreement":{"type":"number","description":"votes divided by n"},` +
		`"votes":{"type":"integer","description":"how many samples gave the answer (compared ignoring case and whitespace)"},` +
		`"n":{"type":"integer","description":"how many answers were sampled"},` +
		`"strategy":{"type":"string"},` +
		`"answers":{"type":"array","items":{"type":"string"},"description":"every sampled answer, in order"},` +
		`"tie_break":{"type":"boolean","description":"true when a tie was broken by a model vote"}}}`)
	reactInput = json.RawMessage(`{"type":"object","additionalProperties":false,"required":["prompt"],"properties":{` +
		`"prompt":{"type":"string","description":"the task (at most 32768 bytes)"},` +
		`"max_rounds":{"type":"integer","default":4,"description":"most model replies; clamped to 1 through 8"}}}`)
	reactOutput = json.RawMessage(`{"type":"object","required":["answer","rounds","trace"],"properties":{` +
		`"answer":{"type":"string","description":"the model's Final answer"},` +
		`"rounds":{"type":"integer","description":"rounds used"},` +
		`"trace":{"type":"array","description":"one entry per round","items":{"type":"object","required":["round"],"properties":{` +
		`"round":{"type":"integer"},` +
		`"thought":{"type":"string"},` +
		`"action":{"type":"string","enum":["calc","echo"]},` +
		`"input":{"type":"string"},` +
		`"observation":{"type":"string","description":"what the tool returned, told to the model"},` +
		`"final":{"type":"string"},` +
		`"error":{"type":"string","description":"how the reply broke the protocol, told to the model"}}}}}}`)
)

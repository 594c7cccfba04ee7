//go:build wasip1

package main

import (
	"encoding/json"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/abi/guest"
)

// readOnly is the annotation every tool of this guest carries: pure functions of their input.
var readOnly = json.RawMessage(`{"readOnlyHint":true,"idempotentHint":true,"openWorldHint":false}`)

func init() {
	guest.SetInfo("text", "1.0.0", "Read-only text utilities: hashing, base64, regular expressions, counting, JSON queries.")
	guest.AddTool(abi.Tool{
		Name: "sha256", Title: "SHA-256",
		Description: "Returns the SHA-256 digest of the text's UTF-8 bytes as lowercase hex.",
		Annotations: readOnly,
	}, SHA256)
	guest.AddTool(abi.Tool{
		Name: "base64_encode", Title: "Base64 encode",
		Description: "Encodes the text's UTF-8 bytes as padded base64 (standard alphabet, or URL-safe with url=true).",
		Annotations: readOnly,
	}, Base64Encode)
	guest.AddTool(abi.Tool{
		Name: "base64_decode", Title: "Base64 decode",
		Description: "Decodes base64 (padded or not; URL-safe alphabet with url=true) to text. Fails if the input is not valid base64 or the bytes are not valid UTF-8.",
		Annotations: readOnly,
	}, Base64Decode)
	guest.AddTool(abi.Tool{
		Name: "regex_match", Title: "Regular expression match",
		Description: "Matches a Go RE2 regular expression (linear time) against text and returns the first match, or all matches with all=true, with byte offsets and capture groups.",
		Annotations: readOnly,
	}, RegexMatch)
	guest.AddTool(abi.Tool{
		Name: "count", Title: "Count",
		Description: "Counts the bytes, runes (Unicode code points), whitespace-separated words and lines of a text.",
		Annotations: readOnly,
	}, Count)
	guest.AddTool(abi.Tool{
		Name: "json_query", Title: "JSON query",
		Description: "Returns the value at a path such as a.b[0].c, $[\"x.y\"] or $ in a JSON document.",
		Annotations: readOnly,
	}, JSONQuery)
	guest.AddTool(abi.Tool{
		Name: "echo", Title: "Echo",
		Description: "Returns the text unchanged, as a text result.",
		Annotations: readOnly,
	}, Echo)
}

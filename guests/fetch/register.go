//go:build wasip1

package main

import (
	"encoding/json"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/abi/guest"
)

func init() {
	guest.SetInfo("fetch", "1.0.0", "Fetches web pages as text over the host's net grant.")
	// Ask for any host: the operator's net grant decides which hosts this guest reaches.
	guest.SetRequests(abi.Requests{Net: []string{"*:*"}})
	guest.AddTool(abi.Tool{
		Name: "fetch", Title: "Fetch URL",
		Description: "GETs an http or https URL and returns the response body as text. HTML is converted to readable text " +
			"(scripts and styles dropped, tags stripped, whitespace collapsed). The text is cut to max_bytes. " +
			"A non-2xx status, a binary body, or a host the operator has not granted is an error.",
		InputSchema: fetchSchema(),
		Annotations: json.RawMessage(`{"readOnlyHint":true,"openWorldHint":true}`),
	}, Fetch)
}

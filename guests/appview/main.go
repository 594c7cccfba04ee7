// Command appview is an example guest with an MCP Apps view (extension
// io.modelcontextprotocol/ui): the tool shout names the HTML view view.html, which a host
// that supports MCP Apps renders in a sandboxed iframe; the view's button calls shout through
// the host and shows the answer. A client without MCP Apps calls shout as a text tool.
//
// Build (from the repo root):
//
//	GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -trimpath -o appview.wasm ./guests/appview
//
// and serve it with `mcpwasm serve appview.wasm` (or `--http 127.0.0.1:8080`). docs/apps.md
// walks through it.
package main

import (
	"context"
	_ "embed"
	"encoding/json"
	"strings"

	"github.com/mcpwasm/mcpwasm/abi"
	"github.com/mcpwasm/mcpwasm/abi/guest"
)

// view is the whole view: HTML, CSS and script in one document (no outside origin is
// needed, so its CSP stays the host's restrictive default).
//
//go:embed view.html
var view string

const viewURI = "ui://appview/shout.html"

// ShoutIn is shout's input.
type ShoutIn struct {
	Text string `json:"text"`
}

// ShoutOut is shout's structured result, which the view shows.
type ShoutOut struct {
	Shout string `json:"shout"`
}

func init() {
	guest.SetInfo("appview", "1.0.0", "An example guest with an MCP Apps view")
	border := true
	guest.AddView(guest.View{URI: viewURI, Name: "shout view", Title: "Shout", HTML: view, PrefersBorder: &border})
	guest.AddTool(abi.Tool{
		Name:        "shout",
		Title:       "Shout",
		Description: "Upper-cases text and adds an exclamation mark; shows a view where hosts support MCP Apps.",
		// Schemas written out: this guest is built without schema inference (no go
		// generate step, no -tags mcpwasm_infer).
		InputSchema:  json.RawMessage(`{"type":"object","properties":{"text":{"type":"string","description":"the text to shout"}},"required":["text"],"additionalProperties":false}`),
		OutputSchema: json.RawMessage(`{"type":"object","properties":{"shout":{"type":"string"}},"required":["shout"]}`),
		Meta:         guest.ViewMeta(viewURI),
	}, func(_ context.Context, in ShoutIn) (ShoutOut, error) {
		return ShoutOut{Shout: strings.ToUpper(in.Text) + "!"}, nil
	})
}

func main() {}

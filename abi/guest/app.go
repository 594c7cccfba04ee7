package guest

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/mcpwasm/mcpwasm/abi"
)

// MCP Apps (extension io.modelcontextprotocol/ui, SEP-1865): a tool names an HTML view that
// a host renders in a sandboxed iframe; the view calls the guest's tools through the host.
// A guest serves one in a few lines:
//
//	//go:embed view.html
//	var view string
//
//	func init() {
//		guest.AddView(guest.View{URI: "ui://counter/view.html", Name: "counter", HTML: view})
//		guest.AddTool(abi.Tool{Name: "count", Meta: guest.ViewMeta("ui://counter/view.html")}, count)
//	}
//
// The host declares the extension and gives the tool's view only to clients that declared it;
// others call the tool as a text-only tool (so its result must still say what happened in
// text).

// AppMIMEType is the MIME type of an MCP Apps HTML view.
const AppMIMEType = "text/html;profile=mcp-app"

// AppCSP lists the origins an MCP Apps view may reach (McpUiResourceCsp); each empty list
// means none (the host's restrictive default).
type AppCSP struct {
	ConnectDomains  []string // fetch, XHR, WebSocket (CSP connect-src)
	ResourceDomains []string // scripts, images, styles, fonts, media
	FrameDomains    []string // nested iframes (frame-src)
	BaseURIDomains  []string // base-uri
}

// View is an MCP Apps view: an HTML document served as the resource URI.
type View struct {
	URI         string // "ui://…": the URI tools name in ViewMeta
	Name        string // the resource name (required)
	Title       string
	Description string
	HTML        string // the whole document, e.g. from //go:embed
	CSP         *AppCSP
	// PrefersBorder asks the host for a border and background (true) or none (false); nil
	// leaves it to the host.
	PrefersBorder *bool
}

// AddView registers v as a resource of type AppMIMEType whose contents are v.HTML, with the
// view's _meta.ui (csp, prefersBorder) on both the listed resource and the contents read. It
// panics when v.URI does not start with "ui://" or Name is empty, as registration errors do.
func AddView(v View) {
	if !strings.HasPrefix(v.URI, "ui://") {
		panic("guest: view " + strconv.Quote(v.URI) + ": an MCP Apps view's URI starts with ui://")
	}
	if v.Name == "" {
		panic("guest: view " + strconv.Quote(v.URI) + ": no Name")
	}
	meta := viewMeta(&v)
	contents := []abi.ResourceContents{{URI: v.URI, MIMEType: AppMIMEType, Text: v.HTML, Meta: meta}}
	AddResource(abi.Resource{URI: v.URI, Name: v.Name, Title: v.Title, Description: v.Description, MIMEType: AppMIMEType, Meta: meta},
		func(context.Context, string) (*abi.ResourceResult, error) {
			return &abi.ResourceResult{Contents: contents}, nil
		})
}

// ViewMeta returns the _meta of a tool whose view is the resource uri (abi.Tool.Meta):
// {"ui":{"resourceUri":uri},"ui/resourceUri":uri} — the key of the MCP Apps spec and the
// deprecated flat one older hosts read, as ext-apps' registerAppTool writes them.
func ViewMeta(uri string) json.RawMessage {
	b := appendString(append([]byte(nil), `{"ui":{"resourceUri":`...), uri)
	b = appendString(append(b, `},"ui/resourceUri":`...), uri)
	return append(b, '}')
}

// viewMeta is v's resource _meta: {"ui":{"csp":{…},"prefersBorder":…}}, or nil when v sets
// neither.
func viewMeta(v *View) json.RawMessage {
	if v.CSP == nil && v.PrefersBorder == nil {
		return nil
	}
	b := []byte(`{"ui":{`)
	first := true
	if c := v.CSP; c != nil {
		b = append(appendField(b, &first, "csp"), '{')
		f := true
		for _, d := range [...]struct {
			key string
			ss  []string
		}{{"connectDomains", c.ConnectDomains}, {"resourceDomains", c.ResourceDomains}, {"frameDomains", c.FrameDomains}, {"baseUriDomains", c.BaseURIDomains}} {
			if len(d.ss) > 0 {
				b = appendStrings(appendField(b, &f, d.key), d.ss, false)
			}
		}
		b = append(b, '}')
	}
	if v.PrefersBorder != nil {
		b = append(appendField(b, &first, "prefersBorder"), strconv.FormatBool(*v.PrefersBorder)...)
	}
	return append(b, "}}"...)
}

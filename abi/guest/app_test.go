package guest

import (
	"testing"

	"github.com/mcpwasm/mcpwasm/abi"
)

// TestViewMeta: a tool's _meta names its view under both MCP Apps keys, the URI escaped as
// JSON.
func TestViewMeta(t *testing.T) {
	if got, want := string(ViewMeta(`ui://a/"v".html`)), `{"ui":{"resourceUri":"ui://a/\"v\".html"},"ui/resourceUri":"ui://a/\"v\".html"}`; got != want {
		t.Errorf("ViewMeta = %s, want %s", got, want)
	}
}

// TestAddView: the view is listed as a ui:// resource of type text/html;profile=mcp-app with
// its _meta.ui, and read as the HTML with the same _meta.ui.
func TestAddView(t *testing.T) {
	yes := true
	AddView(View{URI: "ui://test/view.html", Name: "view", Title: "A view", HTML: "<!doctype html><p>hi & bye</p>",
		CSP: &AppCSP{ConnectDomains: []string{"https://api.example.com"}, FrameDomains: []string{"https://a", "https://b"}}, PrefersBorder: &yes})
	const meta = `{"ui":{"csp":{"connectDomains":["https://api.example.com"],"frameDomains":["https://a","https://b"]},"prefersBorder":true}}`
	var r *abi.Resource
	for i := range reg.manifest.Resources {
		if reg.manifest.Resources[i].URI == "ui://test/view.html" {
			r = &reg.manifest.Resources[i]
		}
	}
	if r == nil || r.MIMEType != AppMIMEType || r.Name != "view" || r.Title != "A view" || string(r.Meta) != meta {
		t.Fatalf("listed resource %+v, want type %s and _meta %s", r, AppMIMEType, meta)
	}
	want := `{"contents":[{"uri":"ui://test/view.html","mimeType":"text/html;profile=mcp-app","text":"<!doctype html><p>hi & bye</p>","_meta":` + meta + `}]}`
	if got := string(read("ui://test/view.html")); got != want {
		t.Errorf("read =\n%s\nwant\n%s", got, want)
	}
	for _, v := range []View{{URI: "https://x", Name: "x"}, {URI: "ui://x"}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("AddView(%+v) did not panic", v)
				}
			}()
			AddView(v)
		}()
	}
	if m := viewMeta(&View{}); m != nil {
		t.Errorf("viewMeta of a view without csp or border = %s, want nil", m)
	}
}

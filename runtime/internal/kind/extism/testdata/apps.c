// apps.c — a hyper-mcp v2 test plugin with an MCP Apps view: its tool names the view in
// _meta (both keys ext-apps' registerAppTool writes), the view is a ui:// resource of type
// text/html;profile=mcp-app with _meta.ui, and read_resource answers the HTML with _meta.ui.
// Rebuild (from this directory):
//   clang-16 --target=wasm32-unknown-unknown -O2 -fno-builtin -nostdlib -Wl,--no-entry -Wl,--strip-all -o apps.wasm apps.c
#include "pdk.h"

static int json_out(const char *s) {
	outn = 0;
	put(s);
	return finish();
}

EXPORT("list_tools") int list_tools(void) {
	return json_out("{\"tools\":[{\"name\":\"clock\",\"description\":\"Shows a clock view; answers the time as text\","
	                "\"inputSchema\":{\"type\":\"object\"},"
	                "\"_meta\":{\"ui\":{\"resourceUri\":\"ui://clock/view.html\"},\"ui/resourceUri\":\"ui://clock/view.html\"}}]}");
}

EXPORT("call_tool") int call_tool(void) {
	const char *t = "12:00";
	return text_result(t, 5);
}

EXPORT("list_resources") int list_resources(void) {
	return json_out("{\"resources\":[{\"uri\":\"ui://clock/view.html\",\"name\":\"clock view\","
	                "\"mimeType\":\"text/html;profile=mcp-app\",\"_meta\":{\"ui\":{\"prefersBorder\":false}}}]}");
}

EXPORT("read_resource") int read_resource(void) {
	return json_out("{\"contents\":[{\"uri\":\"ui://clock/view.html\",\"mimeType\":\"text/html;profile=mcp-app\","
	                "\"text\":\"<!doctype html><title>clock</title><p id=t>12:00</p>\","
	                "\"_meta\":{\"ui\":{\"prefersBorder\":false,\"csp\":{\"connectDomains\":[]}}}}]}");
}

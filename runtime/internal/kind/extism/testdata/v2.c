// v2.c — a hyper-mcp v2 test plugin: tools, prompts, resources, resource templates and
// completions, each entry point answering from the request it got so a test can check the
// exact input hyper-mcp's protocol defines.
// Rebuild (from this directory):
//   clang-16 --target=wasm32-unknown-unknown -O2 -fno-builtin -nostdlib -Wl,--no-entry -Wl,--strip-all -o v2.wasm v2.c
#include "pdk.h"

USER("notify_progress") void u_notify_progress(u64);

static int json_out(const char *s) {
	outn = 0;
	put(s);
	return finish();
}

EXPORT("list_tools") int list_tools(void) {
	read_input();
	if (!find(in, inn, "\"context\":{\"id\":")) return fail("list_tools: no context in the input");
	return json_out("{\"tools\":[{\"name\":\"echo\",\"description\":\"echoes its input\",\"inputSchema\":{\"type\":\"object\"}},"
	                "{\"name\":\"fail\",\"inputSchema\":{\"type\":\"object\"}}]}");
}

// call_tool answers a CallToolResult whose text is the whole input it got.
EXPORT("call_tool") int call_tool(void) {
	read_input();
	if (find(in, inn, "\"name\":\"fail\"")) return fail("v2 says no");
	u_notify_progress(str_kernel("{\"progressToken\":0,\"progress\":3}"));
	return text_result(in, inn);
}

EXPORT("list_prompts") int list_prompts(void) {
	return json_out("{\"prompts\":[{\"name\":\"greet\",\"description\":\"a greeting\",\"arguments\":[{\"name\":\"who\",\"required\":true}]}]}");
}

EXPORT("get_prompt") int get_prompt(void) {
	read_input();
	char who[256];
	i64 n = jstr("who", who, sizeof(who));
	if (n < 0) return fail("get_prompt: argument who is required");
	outn = 0;
	put("{\"description\":\"a greeting\",\"messages\":[{\"role\":\"user\",\"content\":{\"type\":\"text\",\"text\":\"hello ");
	putn(who, (u64)n);
	put("\"}}]}");
	return finish();
}

EXPORT("list_resources") int list_resources(void) {
	return json_out("{\"resources\":[{\"uri\":\"mem://readme\",\"name\":\"readme\",\"mimeType\":\"text/plain\"}]}");
}

EXPORT("list_resource_templates") int list_resource_templates(void) {
	return json_out("{\"resourceTemplates\":[{\"uriTemplate\":\"mem://notes/{id}\",\"name\":\"notes\"}]}");
}

EXPORT("read_resource") int read_resource(void) {
	read_input();
	char uri[512];
	i64 n = jstr("uri", uri, sizeof(uri));
	if (n < 0) return fail("read_resource: no uri");
	if (n > 7 && uri[0] == 'h' && uri[1] == 't' && uri[2] == 't' && uri[3] == 'p' && uri[4] == ':') {
		// An http: URI is read with http_request, as a plugin whose resources come from a web
		// API does: the guest's net grant decides (a resource read runs with its guest's grants).
		outn = 0;
		put("{\"url\":\"");
		putn(uri, (u64)n);
		put("\",\"method\":\"GET\"}");
		u64 resp = x_http_request(to_kernel(out, outn), 0);
		char body[1024];
		u64 bn = resp ? from_kernel(resp, body, sizeof(body)) : 0;
		outn = 0;
		put("{\"contents\":[{\"uri\":\"");
		putn(uri, (u64)n);
		put("\",\"mimeType\":\"text/plain\",\"text\":\"");
		putn(body, bn);
		put("\"}]}");
		return finish();
	}
	outn = 0;
	put("{\"contents\":[{\"uri\":\"");
	putn(uri, (u64)n);
	put("\",\"mimeType\":\"text/plain\",\"text\":\"content of ");
	putn(uri, (u64)n);
	put("\"}]}");
	return finish();
}

// complete answers the ref type it got and the argument's value, so a test sees both.
EXPORT("complete") int complete(void) {
	read_input();
	char typ[64], val[256];
	i64 tn = jstr("type", typ, sizeof(typ));
	i64 vn = jstr("value", val, sizeof(val));
	if (tn < 0 || vn < 0) return fail("complete: ref.type and argument.value are required");
	outn = 0;
	put("{\"completion\":{\"values\":[\"");
	putn(typ, (u64)tn);
	put("\",\"");
	putn(val, (u64)vn);
	put("-one\"],\"total\":2}}");
	return finish();
}

// names.c — a hyper-mcp v2 test plugin whose names are outside mcpwasm's ^[a-zA-Z0-9_-]{1,64}$
// (runtime/names_test.go): tool "files.read" and prompt "greet.formal" answer with the name
// they were called by; tool "grow" adds tool "more.tools" and reports the tool list changed.
// Rebuild (from this directory):
//   clang-16 --target=wasm32-unknown-unknown -O2 -fno-builtin -nostdlib -Wl,--no-entry -Wl,--strip-all -o names.wasm names.c
#include "pdk.h"

USER("notify_tool_list_changed") void u_tools_changed(void);

static int grown;

static int json_out(const char *s) {
	outn = 0;
	put(s);
	return finish();
}

EXPORT("list_tools") int list_tools(void) {
	outn = 0;
	put("{\"tools\":[{\"name\":\"files.read\",\"inputSchema\":{\"type\":\"object\"}},{\"name\":\"grow\",\"inputSchema\":{\"type\":\"object\"}}");
	if (grown) put(",{\"name\":\"more.tools\",\"inputSchema\":{\"type\":\"object\"}}");
	put("]}");
	return finish();
}

// call_tool answers "called NAME", NAME being the tool name of its input.
EXPORT("call_tool") int call_tool(void) {
	read_input();
	char name[128];
	i64 n = jstr("name", name, sizeof(name));
	if (n < 0) return fail("call_tool: no name");
	if (find(in, inn, "\"name\":\"grow\"")) {
		grown = 1;
		u_tools_changed();
	}
	char t[160] = "called ";
	for (i64 i = 0; i < n; i++) t[7 + i] = name[i];
	return text_result(t, 7 + (u64)n);
}

EXPORT("list_prompts") int list_prompts(void) {
	return json_out("{\"prompts\":[{\"name\":\"greet.formal\",\"description\":\"a greeting\"}]}");
}

// get_prompt answers with the prompt name of its input.
EXPORT("get_prompt") int get_prompt(void) {
	read_input();
	char name[128];
	i64 n = jstr("name", name, sizeof(name));
	if (n < 0) return fail("get_prompt: no name");
	outn = 0;
	put("{\"messages\":[{\"role\":\"user\",\"content\":{\"type\":\"text\",\"text\":\"prompt ");
	putn(name, (u64)n);
	put("\"}}]}");
	return finish();
}

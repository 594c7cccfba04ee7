// dyn.c — a hyper-mcp v2 test plugin whose lists change. Tool "grow" adds a tool ("extra1",
// "extra2", …) and, the first time, a prompt, and reports each change many times (the host
// re-lists once per call); "lists" answers how many times list_tools ran in this instance;
// "touch" reports its resource dyn://state updated; "quiet" reports a change that changes
// nothing.
// Rebuild (from this directory):
//   clang-16 --target=wasm32-unknown-unknown -O2 -fno-builtin -nostdlib -Wl,--no-entry -Wl,--strip-all -o dyn.wasm dyn.c
#include "pdk.h"

USER("notify_tool_list_changed") void u_tools_changed(void);
USER("notify_prompt_list_changed") void u_prompts_changed(void);
USER("notify_resource_updated") void u_resource_updated(u64);

static u64 extra, listed;

static int json_out(const char *s) {
	outn = 0;
	put(s);
	return finish();
}

static int say(const char *s, u64 v) {
	char t[64];
	u64 n = 0;
	for (; s[n]; n++) t[n] = s[n];
	outn = 0;
	putu(v);
	for (u64 i = 0; i < outn; i++) t[n++] = out[i];
	return text_result(t, n);
}

EXPORT("list_tools") int list_tools(void) {
	listed++;
	outn = 0;
	put("{\"tools\":[{\"name\":\"grow\",\"inputSchema\":{\"type\":\"object\"}},{\"name\":\"lists\",\"inputSchema\":{\"type\":\"object\"}},"
	    "{\"name\":\"touch\",\"inputSchema\":{\"type\":\"object\"}},{\"name\":\"quiet\",\"inputSchema\":{\"type\":\"object\"}}");
	for (u64 k = 1; k <= extra; k++) {
		put(",{\"name\":\"extra");
		putu(k);
		put("\",\"inputSchema\":{\"type\":\"object\"}}");
	}
	put("]}");
	return finish();
}

EXPORT("list_prompts") int list_prompts(void) {
	if (extra == 0) return json_out("{\"prompts\":[]}");
	return json_out("{\"prompts\":[{\"name\":\"more\",\"description\":\"there is more\"}]}");
}

EXPORT("get_prompt") int get_prompt(void) {
	return json_out("{\"messages\":[{\"role\":\"user\",\"content\":{\"type\":\"text\",\"text\":\"more\"}}]}");
}

EXPORT("list_resources") int list_resources(void) {
	return json_out("{\"resources\":[{\"uri\":\"dyn://state\",\"name\":\"state\",\"mimeType\":\"text/plain\"}]}");
}

EXPORT("read_resource") int read_resource(void) {
	outn = 0;
	put("{\"contents\":[{\"uri\":\"dyn://state\",\"mimeType\":\"text/plain\",\"text\":\"extra=");
	putu(extra);
	put("\"}]}");
	return finish();
}

EXPORT("call_tool") int call_tool(void) {
	read_input();
	if (find(in, inn, "\"name\":\"grow\"")) {
		extra++;
		for (int i = 0; i < 100; i++) u_tools_changed();
		if (extra == 1) u_prompts_changed();
		return say("extra=", extra);
	}
	if (find(in, inn, "\"name\":\"lists\"")) return say("listed=", listed);
	if (find(in, inn, "\"name\":\"touch\"")) {
		u_resource_updated(str_kernel("{\"uri\":\"dyn://state\"}"));
		return say("touched ", extra);
	}
	if (find(in, inn, "\"name\":\"quiet\"")) {
		u_tools_changed();
		return say("quiet ", extra);
	}
	if (find(in, inn, "\"name\":\"extra")) return say("extra tool of ", extra);
	return fail("dyn: unknown tool");
}

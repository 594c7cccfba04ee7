// v1.c — a hyper-mcp v1 test plugin (exports describe and call) that exercises every kernel
// function, every host call and every hyper-mcp callback.
// Rebuild (from this directory):
//   clang-16 --target=wasm32-unknown-unknown -O2 -fno-builtin -nostdlib -Wl,--no-entry -Wl,--strip-all -o v1.wasm v1.c
#include "pdk.h"

USER("create_elicitation") u64 u_create_elicitation(u64);
USER("create_message") u64 u_create_message(u64);
USER("list_roots") u64 u_list_roots(void);
USER("notify_logging_message") void u_notify_logging_message(u64);
USER("notify_progress") void u_notify_progress(u64);
USER("notify_tool_list_changed") void u_notify_tool_list_changed(void);
USER("notify_prompt_list_changed") void u_notify_prompt_list_changed(void);
USER("notify_resource_list_changed") void u_notify_resource_list_changed(void);
USER("notify_resource_updated") void u_notify_resource_updated(u64);
USER("notify_url_elicitation_completed") void u_notify_url_elicitation_completed(u64);
USER("get_keyring_secret") u64 u_get_keyring_secret(u64);
USER("get_access_token") u64 u_get_access_token(u64);

EXPORT("describe") int describe(void) {
	outn = 0;
	put("{\"tools\":[");
	const char *names[] = {"echo", "kernel", "vars", "config", "log", "http", "fail", "trap", "loop", "alloc", "grow", "callbacks", "badjson"};
	for (int i = 0; i < 13; i++) {
		if (i) put(",");
		put("{\"name\":\"");
		put(names[i]);
		put("\",\"description\":\"test tool ");
		put(names[i]);
		put("\"");
		if (i == 0) put(",\"inputSchema\":{\"type\":\"object\",\"properties\":{\"text\":{\"type\":\"string\"}}}");
		put("}");
	}
	put("]}");
	return finish();
}

static char buf[4096];

static int tool_kernel(void) {
	int step = 0;
#define CHECK(c) do { step++; if (!(c)) { outn = 0; put("kernel check failed at step "); putu(step); out[outn] = 0; return fail(out); } } while (0)
	u64 a = x_alloc(10);
	CHECK(a != 0);
	CHECK(x_length(a) == 10);
	CHECK(x_length_unsafe(a) == 10);
	CHECK(x_length(a + 1) == 0);       // not a block's start
	CHECK(x_length(0) == 0);
	CHECK(x_alloc(0) == 0);
	x_store_u64(a, 0x0102030405060708ull);
	CHECK(x_load_u64(a) == 0x0102030405060708ull);
	CHECK(x_load_u8(a) == 8);
	x_store_u8(a + 8, 42);
	CHECK(x_load_u8(a + 8) == 42);
	CHECK(x_load_u64(1ull << 40) == 0); // outside the memory reads 0
	x_store_u64(1ull << 40, 7);         // and a store there is ignored
	x_free(a);
	CHECK(x_length(a) == 0);
	u64 b = x_alloc(4);                 // a freed block large enough is reused
	CHECK(b == a);
	CHECK(x_length(b) == 4);
	u64 n = x_input_length();
	CHECK(n > 0);
	CHECK(x_input_offset() != 0);
	CHECK(x_input_load_u8(n) == 0);     // past the input reads 0
	CHECK(x_input_load_u64(n - 4) == 0);
	CHECK(x_input_load_u8(0) == '{');
	CHECK(x_error_get() == 0);
	CHECK(x_output_length() == 0);
	CHECK(x_http_status_code() == 0);
	u64 h = x_http_headers();
	CHECK(x_length(h) == 2);            // "{}" before any request
	x_free(x_input_offset());
	CHECK(x_input_length() == 0);       // freeing the input block empties it
#undef CHECK
	const char *ok = "kernel ok";
	return text_result(ok, slen(ok));
}

static int tool_vars(void) {
	u64 n = 0;
	u64 v = x_var_get(str_kernel("count"));
	if (v) n = x_load_u64(v);
	n++;
	u64 nv = x_alloc(8);
	x_store_u64(nv, n);
	x_var_set(str_kernel("count"), nv);
	x_var_set(str_kernel("tmp"), str_kernel("x"));
	x_var_set(str_kernel("tmp"), 0);
	int tmpGone = x_var_get(str_kernel("tmp")) == 0;
	outn = 0;
	put("count=");
	putu(n);
	put(tmpGone ? " tmp deleted" : " tmp kept");
	u64 l = outn;
	char t[64];
	for (u64 i = 0; i < l; i++) t[i] = out[i];
	return text_result(t, l);
}

static int tool_config(void) {
	char t[512];
	u64 tn = 0;
	u64 g = x_config_get(str_kernel("greeting"));
	const char *p = g ? "greeting=" : "greeting unset";
	for (u64 i = 0; p[i]; i++) t[tn++] = p[i];
	if (g) tn += from_kernel(g, t + tn, 256);
	const char *m = x_config_get(str_kernel("missing")) ? "; missing set" : "; missing unset";
	for (u64 i = 0; m[i]; i++) t[tn++] = m[i];
	return text_result(t, tn);
}

static int tool_log(void) {
	x_log_trace(str_kernel("t"));
	x_log_debug(str_kernel("d"));
	x_log_info(str_kernel("i"));
	x_log_warn(str_kernel("w"));
	x_log_error(str_kernel("e"));
	outn = 0;
	put("level=");
	putu(x_get_log_level());
	char t[32];
	u64 l = outn;
	for (u64 i = 0; i < l; i++) t[i] = out[i];
	return text_result(t, l);
}

static int tool_http(void) {
	char url[1024], method[16], body[1024];
	i64 un = jstr("url", url, sizeof(url));
	i64 mn = jstr("method", method, sizeof(method));
	i64 bn = jstr("body", body, sizeof(body));
	if (un < 0) return fail("http: arguments.url is required");
	outn = 0;
	put("{\"url\":\"");
	putn(url, (u64)un);
	put("\",\"method\":\"");
	if (mn >= 0) putn(method, (u64)mn); else put("GET");
	put("\",\"headers\":{\"X-Plugin\":\"v1\"}}");
	u64 req = to_kernel(out, outn);
	u64 b = bn >= 0 ? to_kernel(body, (u64)bn) : 0;
	u64 resp = x_http_request(req, b);
	u32 status = x_http_status_code();
	char t[8192];
	u64 tn = 0;
	char num[12];
	int k = 0;
	do { num[k++] = (char)('0' + status % 10); status /= 10; } while (status);
	while (k) t[tn++] = num[--k];
	t[tn++] = '\n';
	if (resp) tn += from_kernel(resp, t + tn, 4096);
	t[tn++] = '\n';
	u64 h = x_http_headers();
	tn += from_kernel(h, t + tn, 2048);
	return text_result(t, tn);
}

static int tool_fail(void) {
	char t[512];
	i64 n = jstr("text", t + 6, 400);
	t[0] = 'b'; t[1] = 'o'; t[2] = 'o'; t[3] = 'm'; t[4] = ':'; t[5] = ' ';
	if (n < 0) n = 0;
	t[6 + n] = 0;
	return fail(t);
}

static int tool_alloc(void) {
	u64 mib = 0;
	while (x_alloc(1 << 20)) mib++;
	outn = 0;
	put("alloc failed after ");
	putu(mib);
	put(" MiB");
	out[outn] = 0;
	return fail(out);
}

static int tool_grow(void) {
	for (;;) {
		if (__builtin_wasm_memory_grow(0, 16) == (unsigned long)-1) __builtin_trap(); // as Rust's alloc failure aborts
	}
}

static u64 say(const char *json) { return str_kernel(json); }

static int tool_callbacks(void) {
	char t[16384];
	u64 tn = 0;
	u_notify_progress(say("{\"progressToken\":\"tok\",\"progress\":1,\"total\":2,\"message\":\"half\"}"));
	u_notify_logging_message(say("{\"level\":\"warning\",\"logger\":\"lg\",\"data\":\"careful\"}"));
	u_notify_logging_message(say("{\"level\":\"info\",\"data\":{\"k\":1}}"));
	u_notify_tool_list_changed();
	u_notify_prompt_list_changed();
	u_notify_resource_list_changed();
	u_notify_resource_updated(say("{\"uri\":\"mem://a\"}"));
	u_notify_url_elicitation_completed(say("{\"elicitationId\":\"e1\"}"));
	u64 r[5];
	r[0] = u_create_message(say("{\"messages\":[{\"role\":\"user\",\"content\":{\"type\":\"text\",\"text\":\"hi\"}}],\"maxTokens\":5}"));
	r[1] = u_create_elicitation(say("{\"message\":\"when?\",\"requestedSchema\":{\"type\":\"object\",\"properties\":{\"at\":{\"type\":\"string\",\"format\":\"date_time\"}}},\"timeout\":30}"));
	r[2] = u_list_roots();
	r[3] = u_get_keyring_secret(say("{\"service\":\"s\",\"user\":\"u\"}"));
	r[4] = u_get_access_token(say("{\"client_id\":\"c\"}"));
	for (int i = 0; i < 5; i++) {
		if (i) t[tn++] = '\n';
		if (r[i]) tn += from_kernel(r[i], t + tn, 3000);
		else { t[tn++] = '0'; }
	}
	return text_result(t, tn);
}

EXPORT("call") int call(void) {
	read_input();
	char name[64];
	i64 n = jstr("name", name, sizeof(name) - 1);
	if (n < 0) return fail("call: params.name is missing");
	name[n] = 0;
	const char *nm = name;
#define IS(s) (slen(s) == (u64)n && find(nm, (u64)n, s) == nm)
	if (IS("echo")) {
		i64 tl = jstr("text", buf, sizeof(buf));
		if (tl < 0) tl = 0;
		return text_result(buf, (u64)tl);
	}
	if (IS("kernel")) return tool_kernel();
	if (IS("vars")) return tool_vars();
	if (IS("config")) return tool_config();
	if (IS("log")) return tool_log();
	if (IS("http")) return tool_http();
	if (IS("fail")) return tool_fail();
	if (IS("trap")) __builtin_trap();
	if (IS("loop")) { x_log_info(str_kernel("looping")); volatile int x = 0; for (;;) x++; }
	if (IS("alloc")) return tool_alloc();
	if (IS("grow")) return tool_grow();
	if (IS("callbacks")) return tool_callbacks();
	if (IS("badjson")) { outn = 0; put("not json"); return finish(); }
#undef IS
	return fail("unknown tool");
}

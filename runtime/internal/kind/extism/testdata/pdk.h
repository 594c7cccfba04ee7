// pdk.h — a minimal Extism plugin kit for the test plugins (no Extism PDK is on the
// registries here): the extism:host/env kernel and host calls, hyper-mcp's extism:host/user
// callbacks, and byte helpers. Written against the documented ABI, not copied from a PDK.
// Built without libc: clang-16 --target=wasm32-unknown-unknown -nostdlib (see v1.c, v2.c).

typedef unsigned long long u64;
typedef long long i64;
typedef unsigned int u32;
typedef unsigned char u8;

#define ENV(n) __attribute__((import_module("extism:host/env"), import_name(n)))
#define USER(n) __attribute__((import_module("extism:host/user"), import_name(n)))
#define EXPORT(n) __attribute__((export_name(n)))

ENV("alloc") u64 x_alloc(u64);
ENV("free") void x_free(u64);
ENV("length") u64 x_length(u64);
ENV("length_unsafe") u64 x_length_unsafe(u64);
ENV("load_u8") u32 x_load_u8(u64);
ENV("load_u64") u64 x_load_u64(u64);
ENV("store_u8") void x_store_u8(u64, u32);
ENV("store_u64") void x_store_u64(u64, u64);
ENV("input_length") u64 x_input_length(void);
ENV("input_offset") u64 x_input_offset(void);
ENV("input_load_u8") u32 x_input_load_u8(u64);
ENV("input_load_u64") u64 x_input_load_u64(u64);
ENV("output_set") void x_output_set(u64, u64);
ENV("output_length") u64 x_output_length(void);
ENV("error_set") void x_error_set(u64);
ENV("error_get") u64 x_error_get(void);
ENV("config_get") u64 x_config_get(u64);
ENV("var_get") u64 x_var_get(u64);
ENV("var_set") void x_var_set(u64, u64);
ENV("http_request") u64 x_http_request(u64, u64);
ENV("http_status_code") u32 x_http_status_code(void);
ENV("http_headers") u64 x_http_headers(void);
ENV("log_trace") void x_log_trace(u64);
ENV("log_debug") void x_log_debug(u64);
ENV("log_info") void x_log_info(u64);
ENV("log_warn") void x_log_warn(u64);
ENV("log_error") void x_log_error(u64);
ENV("get_log_level") u32 x_get_log_level(void);

// memset/memcpy for the code clang generates (no libc).
void *memset(void *d, int c, unsigned long n) {
	volatile u8 *p = d;
	while (n--) *p++ = (u8)c;
	return d;
}
void *memcpy(void *d, const void *s, unsigned long n) {
	volatile u8 *p = d;
	const u8 *q = s;
	while (n--) *p++ = *q++;
	return d;
}

static u64 slen(const char *s) {
	u64 n = 0;
	while (s[n]) n++;
	return n;
}

// to_kernel copies n bytes into a new kernel block (u64 stores, then bytes) and returns it.
static u64 to_kernel(const char *p, u64 n) {
	u64 off = x_alloc(n);
	if (off == 0) return 0;
	u64 i = 0;
	for (; i + 8 <= n; i += 8) {
		u64 v = 0;
		for (int j = 7; j >= 0; j--) v = (v << 8) | (u8)p[i + j];
		x_store_u64(off + i, v);
	}
	for (; i < n; i++) x_store_u8(off + i, (u8)p[i]);
	return off;
}

static u64 str_kernel(const char *s) { return to_kernel(s, slen(s)); }

// from_kernel copies a kernel block into dst (at most cap bytes) and returns its length.
static u64 from_kernel(u64 off, char *dst, u64 cap) {
	u64 n = x_length(off);
	if (n > cap) n = cap;
	u64 i = 0;
	for (; i + 8 <= n; i += 8) {
		u64 v = x_load_u64(off + i);
		for (int j = 0; j < 8; j++) dst[i + j] = (char)(v >> (8 * j));
	}
	for (; i < n; i++) dst[i] = (char)x_load_u8(off + i);
	return n;
}

static char in[65536];
static u64 inn;

// read_input loads the whole input into in (u64 loads, then bytes).
static void read_input(void) {
	u64 n = x_input_length();
	if (n > sizeof(in)) n = sizeof(in);
	u64 i = 0;
	for (; i + 8 <= n; i += 8) {
		u64 v = x_input_load_u64(i);
		for (int j = 0; j < 8; j++) in[i + j] = (char)(v >> (8 * j));
	}
	for (; i < n; i++) in[i] = (char)x_input_load_u8(i);
	inn = n;
}

static char out[65536];
static u64 outn;

static void putn(const char *s, u64 n) {
	for (u64 i = 0; i < n && outn < sizeof(out); i++) out[outn++] = s[i];
}
static void put(const char *s) { putn(s, slen(s)); }
static void putu(u64 v) {
	char b[24];
	int i = 0;
	do { b[i++] = (char)('0' + v % 10); v /= 10; } while (v);
	while (i) putn(&b[--i], 1);
}
// putjs writes s as the inside of a JSON string.
static void putjs(const char *s, u64 n) {
	static const char hex[] = "0123456789abcdef";
	for (u64 i = 0; i < n; i++) {
		u8 c = (u8)s[i];
		if (c == '"' || c == '\\') { putn("\\", 1); putn((const char *)&s[i], 1); }
		else if (c == '\n') put("\\n");
		else if (c < 0x20) { char e[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]}; putn(e, 6); }
		else putn((const char *)&s[i], 1);
	}
}

// finish sets out as the output and returns 0.
static int finish(void) {
	u64 off = to_kernel(out, outn);
	x_output_set(off, outn);
	return 0;
}

// fail sets msg as the error and returns 1.
static int fail(const char *msg) {
	x_error_set(str_kernel(msg));
	return 1;
}

// text_result sets a CallToolResult with one text block holding s.
static int text_result(const char *s, u64 n) {
	outn = 0;
	put("{\"content\":[{\"type\":\"text\",\"text\":\"");
	putjs(s, n);
	put("\"}]}");
	return finish();
}

// find returns the first occurrence of needle in hay[0:n], or 0.
static const char *find(const char *hay, u64 n, const char *needle) {
	u64 m = slen(needle);
	for (u64 i = 0; i + m <= n; i++) {
		u64 j = 0;
		while (j < m && hay[i + j] == needle[j]) j++;
		if (j == m) return hay + i;
	}
	return 0;
}

// jstr copies the string value of "key" (first occurrence, escapes kept) into dst and
// returns its length, or -1 if absent.
static i64 jstr(const char *key, char *dst, u64 cap) {
	char pat[64];
	u64 k = 0;
	pat[k++] = '"';
	for (u64 i = 0; key[i] && k < 60; i++) pat[k++] = key[i];
	pat[k++] = '"'; pat[k++] = ':'; pat[k++] = '"'; pat[k] = 0;
	const char *p = find(in, inn, pat);
	if (!p) return -1;
	p += k;
	u64 n = 0;
	while (p < in + inn && *p != '"' && n < cap) {
		if (*p == '\\' && p + 1 < in + inn) dst[n++] = *p++;
		dst[n++] = *p++;
	}
	return (i64)n;
}

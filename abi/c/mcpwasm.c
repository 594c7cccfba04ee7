/* mcpwasm.c — the C guest SDK for the mcpwasm guest ABI v1. See mcpwasm.h and abi/ABI.md. */
#include "mcpwasm.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- Host imports (abi/ABI.md §6). Only those a guest uses end up imported. -------------- */

#define IMPORT(name) __attribute__((import_module("mcpwasm_v1"), import_name(name)))
IMPORT("log") int32_t mcpwasm_v1_log(int32_t level, const char *msg, uint32_t n);
IMPORT("progress") int32_t mcpwasm_v1_progress(double progress, double total, const char *msg, uint32_t n);
IMPORT("cancelled") int32_t mcpwasm_v1_cancelled(void);
IMPORT("request") uint64_t mcpwasm_v1_request(const char *kind, uint32_t kind_len, const char *req, uint32_t req_len);
IMPORT("response") int32_t mcpwasm_v1_response(char *buf, uint32_t n);

int mcpwasm_log(int level, const char *msg) {
	return mcpwasm_v1_log(level, msg, (uint32_t)strlen(msg));
}

int mcpwasm_progress(double progress, double total, const char *msg) {
	return mcpwasm_v1_progress(progress, total, msg ? msg : "", msg ? (uint32_t)strlen(msg) : 0);
}

int mcpwasm_cancelled(void) { return mcpwasm_v1_cancelled() == 1; }

int mcpwasm_request(const char *kind, const char *req, size_t n, char **resp, size_t *resp_len) {
	uint64_t r = mcpwasm_v1_request(kind, (uint32_t)strlen(kind), req, (uint32_t)n);
	int status = (int)(uint32_t)(r >> 32);
	uint32_t len = (uint32_t)r;
	if (resp) *resp = NULL;
	if (resp_len) *resp_len = 0;
	char *buf = malloc((size_t)len + 1);
	if (!buf) return MCPWASM_TOO_LARGE;
	int32_t got = len ? mcpwasm_v1_response(buf, len) : 0;
	if (got < 0) {
		free(buf);
		return -got;
	}
	buf[got] = 0;
	if (resp) *resp = buf; else free(buf);
	if (resp_len) *resp_len = (size_t)got;
	return status;
}

int mcpwasm_sample(const char *prompt, int max_tokens, char **resp, size_t *resp_len) {
	mcpwasm_buf b = {0};
	mcpwasm_buf_puts(&b, "{\"messages\":[{\"role\":\"user\",\"content\":{\"type\":\"text\",\"text\":");
	mcpwasm_buf_json_string(&b, prompt, strlen(prompt));
	mcpwasm_buf_printf(&b, "}}],\"maxTokens\":%d}", max_tokens);
	if (b.oom) {
		mcpwasm_buf_free(&b);
		return MCPWASM_TOO_LARGE;
	}
	int st = mcpwasm_request("sampling", b.data, b.len, resp, resp_len);
	mcpwasm_buf_free(&b);
	return st;
}

int mcpwasm_elicit(const char *message, const char *requested_schema, char **resp, size_t *resp_len) {
	mcpwasm_buf b = {0};
	mcpwasm_buf_puts(&b, "{\"message\":");
	mcpwasm_buf_json_string(&b, message, strlen(message));
	if (requested_schema) {
		mcpwasm_buf_puts(&b, ",\"requestedSchema\":");
		mcpwasm_buf_puts(&b, requested_schema);
	}
	mcpwasm_buf_puts(&b, "}");
	if (b.oom) {
		mcpwasm_buf_free(&b);
		return MCPWASM_TOO_LARGE;
	}
	int st = mcpwasm_request("elicitation", b.data, b.len, resp, resp_len);
	mcpwasm_buf_free(&b);
	return st;
}

/* ---- Buffers ------------------------------------------------------------------------------ */

void mcpwasm_buf_append(mcpwasm_buf *b, const char *s, size_t n) {
	if (b->oom || n == 0) return;
	if (n > SIZE_MAX / 2 - b->len) { b->oom = 1; return; }
	if (b->len + n > b->cap) {
		size_t cap = b->cap ? b->cap : 64;
		while (cap < b->len + n) cap *= 2;
		char *d = realloc(b->data, cap);
		if (!d) { b->oom = 1; return; }
		b->data = d;
		b->cap = cap;
	}
	memcpy(b->data + b->len, s, n);
	b->len += n;
}

void mcpwasm_buf_puts(mcpwasm_buf *b, const char *s) { mcpwasm_buf_append(b, s, strlen(s)); }

static void buf_vprintf(mcpwasm_buf *b, const char *fmt, va_list ap) {
	char tmp[4096];
	int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
	if (n < 0) return;
	mcpwasm_buf_append(b, tmp, (size_t)n < sizeof tmp ? (size_t)n : sizeof tmp - 1);
}

void mcpwasm_buf_printf(mcpwasm_buf *b, const char *fmt, ...) {
	va_list ap;
	va_start(ap, fmt);
	buf_vprintf(b, fmt, ap);
	va_end(ap);
}

void mcpwasm_buf_json_string(mcpwasm_buf *b, const char *s, size_t n) {
	static const char hex[] = "0123456789abcdef";
	mcpwasm_buf_append(b, "\"", 1);
	size_t run = 0; /* start of the pending run of bytes that need no escaping */
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		const char *esc = NULL;
		char u[6];
		switch (c) {
		case '"': esc = "\\\""; break;
		case '\\': esc = "\\\\"; break;
		case '\n': esc = "\\n"; break;
		case '\r': esc = "\\r"; break;
		case '\t': esc = "\\t"; break;
		case '\b': esc = "\\b"; break;
		case '\f': esc = "\\f"; break;
		default:
			if (c >= 0x20) continue;
		}
		mcpwasm_buf_append(b, s + run, i - run);
		if (esc) {
			mcpwasm_buf_append(b, esc, 2);
		} else {
			u[0] = '\\', u[1] = 'u', u[2] = '0', u[3] = '0', u[4] = hex[c >> 4], u[5] = hex[c & 15];
			mcpwasm_buf_append(b, u, 6);
		}
		run = i + 1;
	}
	mcpwasm_buf_append(b, s + run, n - run);
	mcpwasm_buf_append(b, "\"", 1);
}

void mcpwasm_buf_free(mcpwasm_buf *b) {
	free(b->data);
	b->data = NULL;
	b->len = b->cap = 0;
	b->oom = 0;
}

/* ---- Registry ----------------------------------------------------------------------------- */

struct tool {
	const char *name, *description, *schema;
	mcpwasm_handler handler;
	const char *meta; /* _meta JSON object, or NULL */
};

static struct {
	const char *name, *version, *description;
	struct tool tools[MCPWASM_MAX_TOOLS];
	int ntools;
	int initialised;
} reg;

void mcpwasm_set_info(const char *name, const char *version, const char *description) {
	reg.name = name, reg.version = version, reg.description = description;
}

int mcpwasm_add_tool(const char *name, const char *description, const char *input_schema,
                     mcpwasm_handler handler) {
	if (reg.ntools == MCPWASM_MAX_TOOLS) return -1;
	reg.tools[reg.ntools++] = (struct tool){name, description, input_schema, handler, NULL};
	return 0;
}

int mcpwasm_set_tool_meta(const char *name, const char *meta_json) {
	for (int i = 0; i < reg.ntools; i++) {
		if (strcmp(reg.tools[i].name, name) == 0) {
			reg.tools[i].meta = meta_json;
			return 0;
		}
	}
	return -1;
}

static void ensure_init(void) {
	if (!reg.initialised) {
		reg.initialised = 1;
		mcpwasm_init();
	}
}

/* ---- JSON reader ---------------------------------------------------------------------------
 * Enough JSON to find a key at the top level of an object and decode a scalar value. Every
 * index is checked against the length; nothing recurses; input is never modified. */

/* Strings decoded for the running handler, freed when it returns. */
static struct {
	char **p;
	size_t n, cap;
} arena;

static void arena_free(void) {
	for (size_t i = 0; i < arena.n; i++) free(arena.p[i]);
	arena.n = 0;
}

static size_t skip_ws(const char *s, size_t n, size_t i) {
	while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r')) i++;
	return i;
}

static int hexval(char c) {
	if (c >= '0' && c <= '9') return c - '0';
	if (c >= 'a' && c <= 'f') return c - 'a' + 10;
	if (c >= 'A' && c <= 'F') return c - 'A' + 10;
	return -1;
}

static int read_hex4(const char *s, size_t n, size_t i, uint32_t *out) {
	if (i + 4 > n) return -1;
	uint32_t v = 0;
	for (int k = 0; k < 4; k++) {
		int h = hexval(s[i + k]);
		if (h < 0) return -1;
		v = v << 4 | (uint32_t)h;
	}
	*out = v;
	return 0;
}

static void put_utf8(mcpwasm_buf *b, uint32_t cp) {
	char u[4];
	size_t k;
	if (cp < 0x80) u[0] = (char)cp, k = 1;
	else if (cp < 0x800) u[0] = (char)(0xC0 | cp >> 6), u[1] = (char)(0x80 | (cp & 0x3F)), k = 2;
	else if (cp < 0x10000)
		u[0] = (char)(0xE0 | cp >> 12), u[1] = (char)(0x80 | (cp >> 6 & 0x3F)), u[2] = (char)(0x80 | (cp & 0x3F)), k = 3;
	else
		u[0] = (char)(0xF0 | cp >> 18), u[1] = (char)(0x80 | (cp >> 12 & 0x3F)),
		u[2] = (char)(0x80 | (cp >> 6 & 0x3F)), u[3] = (char)(0x80 | (cp & 0x3F)), k = 4;
	mcpwasm_buf_append(b, u, k);
}

/* Reads the string starting at s[*i] == '"'; decodes it into out unless out is NULL. On
 * success *i is just past the closing quote. */
static int read_string(const char *s, size_t n, size_t *i, mcpwasm_buf *out) {
	size_t j = *i + 1, run = j;
	for (;;) {
		if (j >= n) return -1;
		unsigned char c = (unsigned char)s[j];
		if (c == '"') break;
		if (c < 0x20) return -1;
		if (c != '\\') { j++; continue; }
		if (out) mcpwasm_buf_append(out, s + run, j - run);
		if (j + 1 >= n) return -1;
		char e = s[j + 1], ch = 0;
		j += 2;
		switch (e) {
		case '"': ch = '"'; break;
		case '\\': ch = '\\'; break;
		case '/': ch = '/'; break;
		case 'b': ch = '\b'; break;
		case 'f': ch = '\f'; break;
		case 'n': ch = '\n'; break;
		case 'r': ch = '\r'; break;
		case 't': ch = '\t'; break;
		case 'u': {
			uint32_t cp, lo;
			if (read_hex4(s, n, j, &cp)) return -1;
			j += 4;
			if (cp >= 0xD800 && cp < 0xDC00 && j + 1 < n && s[j] == '\\' && s[j + 1] == 'u' &&
			    !read_hex4(s, n, j + 2, &lo) && lo >= 0xDC00 && lo < 0xE000) {
				cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
				j += 6;
			} else if (cp >= 0xD800 && cp < 0xE000) {
				cp = 0xFFFD; /* a lone surrogate, as Go's encoding/json decodes it */
			}
			if (out) put_utf8(out, cp);
			run = j;
			continue;
		}
		default: return -1;
		}
		if (out) mcpwasm_buf_append(out, &ch, 1);
		run = j;
	}
	if (out) mcpwasm_buf_append(out, s + run, j - run);
	*i = j + 1;
	return 0;
}

/* Skips one value starting at s[*i] (no leading whitespace). */
static int skip_value(const char *s, size_t n, size_t *i) {
	size_t j = *i;
	long depth = 0;
	do {
		if (j >= n) return -1;
		char c = s[j];
		if (c == '"') {
			if (read_string(s, n, &j, NULL)) return -1;
			continue;
		}
		if (c == '{' || c == '[') depth++;
		else if (c == '}' || c == ']') {
			if (--depth < 0) return -1;
		} else if (depth == 0) {
			/* a scalar at the top: runs until a delimiter */
			size_t k = j;
			while (k < n && !strchr(",}] \t\r\n", s[k])) k++;
			if (k == j) return -1;
			j = k;
			break;
		}
		j++;
	} while (depth > 0);
	*i = j;
	return 0;
}

/* Finds the value of top-level key in the object; the last of duplicate keys wins, as with
 * Go's encoding/json. */
static int find(const mcpwasm_args *a, const char *key, size_t *at) {
	const char *s = a->json;
	size_t n = a->len, i = skip_ws(s, n, 0), klen = strlen(key);
	int found = 0, rc = MCPWASM_ARG_MALFORMED;
	mcpwasm_buf k = {0};
	if (i >= n || s[i] != '{') goto out;
	i = skip_ws(s, n, i + 1);
	if (i < n && s[i] == '}') { rc = MCPWASM_ARG_MISSING; goto out; }
	for (;;) {
		if (i >= n || s[i] != '"') goto out;
		k.len = 0;
		if (read_string(s, n, &i, &k) || k.oom) goto out;
		i = skip_ws(s, n, i);
		if (i >= n || s[i] != ':') goto out;
		i = skip_ws(s, n, i + 1);
		if (k.len == klen && memcmp(k.data ? k.data : "", key, klen) == 0) *at = i, found = 1;
		if (skip_value(s, n, &i)) goto out;
		i = skip_ws(s, n, i);
		if (i < n && s[i] == '}') break;
		if (i >= n || s[i] != ',') goto out;
		i = skip_ws(s, n, i + 1);
	}
	rc = found ? MCPWASM_ARG_OK : MCPWASM_ARG_MISSING;
out:
	mcpwasm_buf_free(&k);
	return rc;
}

int mcpwasm_arg_string(const mcpwasm_args *a, const char *key, const char **out, size_t *len) {
	size_t i;
	int rc = find(a, key, &i);
	if (rc) return rc;
	if (a->json[i] != '"') return MCPWASM_ARG_TYPE;
	if (arena.n == arena.cap) {
		size_t cap = arena.cap ? arena.cap * 2 : 8;
		char **p = realloc(arena.p, cap * sizeof *p);
		if (!p) return MCPWASM_ARG_MALFORMED;
		arena.p = p, arena.cap = cap;
	}
	mcpwasm_buf b = {0};
	if (read_string(a->json, a->len, &i, &b)) {
		mcpwasm_buf_free(&b);
		return MCPWASM_ARG_MALFORMED;
	}
	mcpwasm_buf_append(&b, "", 1); /* the NUL; also allocates for an empty string */
	if (b.oom) {
		mcpwasm_buf_free(&b);
		return MCPWASM_ARG_MALFORMED;
	}
	arena.p[arena.n++] = b.data;
	*out = b.data;
	if (len) *len = b.len - 1;
	return MCPWASM_ARG_OK;
}

int mcpwasm_arg_number(const mcpwasm_args *a, const char *key, double *out) {
	size_t i;
	int rc = find(a, key, &i);
	if (rc) return rc;
	const char *s = a->json;
	if (s[i] != '-' && (s[i] < '0' || s[i] > '9')) return MCPWASM_ARG_TYPE;
	char tmp[64];
	size_t k = 0;
	while (i + k < a->len && strchr("+-.eE0123456789", s[i + k]) && s[i + k]) {
		if (k == sizeof tmp - 1) return MCPWASM_ARG_MALFORMED;
		tmp[k] = s[i + k];
		k++;
	}
	tmp[k] = 0;
	char *end;
	*out = strtod(tmp, &end);
	return end == tmp + k ? MCPWASM_ARG_OK : MCPWASM_ARG_MALFORMED;
}

int mcpwasm_arg_int(const mcpwasm_args *a, const char *key, int64_t *out) {
	double d;
	int rc = mcpwasm_arg_number(a, key, &d);
	if (rc) return rc;
	/* 2^63 is exactly representable; anything at or past it does not fit. */
	if (!(d >= -9223372036854775808.0 && d < 9223372036854775808.0) || d != (double)(int64_t)d)
		return MCPWASM_ARG_TYPE;
	*out = (int64_t)d;
	return MCPWASM_ARG_OK;
}

int mcpwasm_arg_bool(const mcpwasm_args *a, const char *key, int *out) {
	size_t i;
	int rc = find(a, key, &i);
	if (rc) return rc;
	const char *s = a->json + i;
	size_t left = a->len - i;
	if (left >= 4 && memcmp(s, "true", 4) == 0) *out = 1;
	else if (left >= 5 && memcmp(s, "false", 5) == 0) *out = 0;
	else return MCPWASM_ARG_TYPE;
	return MCPWASM_ARG_OK;
}

/* ---- Results ------------------------------------------------------------------------------ */

struct mcpwasm_result {
	mcpwasm_buf content;    /* comma-separated content blocks */
	mcpwasm_buf structured; /* raw JSON, or empty */
	int is_error;
};

void mcpwasm_result_text(mcpwasm_result *r, const char *s, size_t n) {
	if (r->content.len) mcpwasm_buf_append(&r->content, ",", 1);
	mcpwasm_buf_puts(&r->content, "{\"type\":\"text\",\"text\":");
	mcpwasm_buf_json_string(&r->content, s, n);
	mcpwasm_buf_append(&r->content, "}", 1);
}

void mcpwasm_result_textf(mcpwasm_result *r, const char *fmt, ...) {
	mcpwasm_buf b = {0};
	va_list ap;
	va_start(ap, fmt);
	buf_vprintf(&b, fmt, ap);
	va_end(ap);
	mcpwasm_result_text(r, b.data ? b.data : "", b.len);
	r->content.oom |= b.oom;
	mcpwasm_buf_free(&b);
}

void mcpwasm_result_json(mcpwasm_result *r, const char *json, size_t n) {
	r->structured.len = 0;
	mcpwasm_buf_append(&r->structured, json, n);
	mcpwasm_result_text(r, json, n);
}

void mcpwasm_result_error(mcpwasm_result *r, const char *msg) {
	r->content.len = 0;
	r->structured.len = 0;
	r->is_error = 1;
	mcpwasm_result_text(r, msg, strlen(msg));
}

void mcpwasm_result_errorf(mcpwasm_result *r, const char *fmt, ...) {
	mcpwasm_buf b = {0};
	va_list ap;
	va_start(ap, fmt);
	buf_vprintf(&b, fmt, ap);
	va_end(ap);
	mcpwasm_buf_append(&b, "", 1);
	mcpwasm_result_error(r, b.oom ? "out of memory" : b.data);
	mcpwasm_buf_free(&b);
}

/* ---- Exports (abi/ABI.md §2) -------------------------------------------------------------- */

#define EXPORT(name) __attribute__((export_name(name)))

static char *in_buf;          /* the input region (§2.1) */
static mcpwasm_buf out;       /* the last returned region (§3) */
static mcpwasm_buf manifest;  /* built once */

static const char oom_result[] =
	"{\"content\":[{\"type\":\"text\",\"text\":\"out of memory building the result\"}],\"isError\":true}";

static uint64_t pack(const char *p, size_t n) { return (uint64_t)(uintptr_t)p << 32 | (uint32_t)n; }

EXPORT("mcpwasm_abi_version") int32_t mcpwasm_abi_version(void) { return MCPWASM_ABI_VERSION; }

EXPORT("mcpwasm_alloc") char *mcpwasm_alloc(int32_t size) {
	free(in_buf);
	in_buf = size < 0 ? NULL : malloc(size ? (size_t)size : 1);
	return in_buf;
}

static void put_field(mcpwasm_buf *b, const char *key, const char *val) {
	if (!val) return;
	mcpwasm_buf_printf(b, ",\"%s\":", key);
	mcpwasm_buf_json_string(b, val, strlen(val));
}

EXPORT("mcpwasm_describe") uint64_t mcpwasm_describe(void) {
	ensure_init();
	if (!manifest.len || manifest.oom) {
		mcpwasm_buf_free(&manifest);
		mcpwasm_buf *m = &manifest;
		mcpwasm_buf_puts(m, "{\"name\":");
		const char *name = reg.name ? reg.name : "";
		mcpwasm_buf_json_string(m, name, strlen(name));
		put_field(m, "version", reg.version);
		put_field(m, "description", reg.description);
		mcpwasm_buf_puts(m, ",\"tools\":[");
		for (int i = 0; i < reg.ntools; i++) {
			const struct tool *t = &reg.tools[i];
			mcpwasm_buf_puts(m, i ? ",{\"name\":" : "{\"name\":");
			mcpwasm_buf_json_string(m, t->name, strlen(t->name));
			put_field(m, "description", t->description);
			mcpwasm_buf_puts(m, ",\"inputSchema\":");
			mcpwasm_buf_puts(m, t->schema ? t->schema : "{\"type\":\"object\"}");
			if (t->meta) {
				mcpwasm_buf_puts(m, ",\"_meta\":");
				mcpwasm_buf_puts(m, t->meta);
			}
			mcpwasm_buf_puts(m, "}");
		}
		mcpwasm_buf_puts(m, "]}");
		if (m->oom) return pack(oom_result, sizeof oom_result - 1); /* not a manifest: the load fails */
	}
	return pack(manifest.data, manifest.len);
}

EXPORT("mcpwasm_call") uint64_t mcpwasm_call(const char *name, uint32_t name_len, const char *args, uint32_t args_len) {
	ensure_init();
	mcpwasm_result r = {0};
	const struct tool *t = NULL;
	for (int i = 0; i < reg.ntools; i++) {
		if (strlen(reg.tools[i].name) == name_len && memcmp(reg.tools[i].name, name, name_len) == 0) {
			t = &reg.tools[i];
			break;
		}
	}
	if (t) {
		mcpwasm_args a = {args, args_len};
		t->handler(t->name, &a, &r);
		arena_free();
	} else {
		mcpwasm_buf m = {0};
		mcpwasm_buf_puts(&m, "unknown tool ");
		mcpwasm_buf_json_string(&m, name, name_len);
		mcpwasm_buf_append(&m, "", 1);
		mcpwasm_result_error(&r, m.oom ? "unknown tool" : m.data);
		mcpwasm_buf_free(&m);
	}
	out.len = 0;
	mcpwasm_buf_puts(&out, "{\"content\":[");
	mcpwasm_buf_append(&out, r.content.data, r.content.len);
	mcpwasm_buf_puts(&out, "]");
	if (r.structured.len) {
		mcpwasm_buf_puts(&out, ",\"structuredContent\":");
		mcpwasm_buf_append(&out, r.structured.data, r.structured.len);
	}
	if (r.is_error) mcpwasm_buf_puts(&out, ",\"isError\":true");
	mcpwasm_buf_puts(&out, "}");
	int oom = out.oom || r.content.oom || r.structured.oom;
	mcpwasm_buf_free(&r.content);
	mcpwasm_buf_free(&r.structured);
	if (oom) {
		mcpwasm_buf_free(&out);
		return pack(oom_result, sizeof oom_result - 1);
	}
	return pack(out.data, out.len);
}

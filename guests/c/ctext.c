/* ctext — an mcpwasm guest in C: fast text tools on the C guest SDK (abi/c/mcpwasm.h).
 *
 * Build (from the repo root; guests/build-native.sh does this):
 *
 *   clang-16 --target=wasm32-wasi -mexec-model=reactor -O2 -Iabi/c -Wl,--strip-all \
 *       -o ctext.wasm abi/c/mcpwasm.c guests/c/ctext.c
 */
#include <stdint.h>
#include <string.h>

#include "mcpwasm.h"

/* wc counts lines, words, UTF-8 characters and bytes, like wc(1). */
static void wc(const char *tool, const mcpwasm_args *args, mcpwasm_result *res) {
	const char *s;
	size_t n;
	if (mcpwasm_arg_string(args, "text", &s, &n) != MCPWASM_ARG_OK) {
		mcpwasm_result_error(res, "text: want a string");
		return;
	}
	mcpwasm_log(MCPWASM_DEBUG, "wc: counting");
	uint64_t lines = 0, words = 0, chars = 0;
	int in_word = 0;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		lines += c == '\n';
		chars += (c & 0xC0) != 0x80; /* count every byte that starts a UTF-8 sequence */
		int space = c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
		words += !space && !in_word;
		in_word = !space;
	}
	mcpwasm_buf j = {0};
	mcpwasm_buf_printf(&j, "{\"lines\":%llu,\"words\":%llu,\"chars\":%llu,\"bytes\":%zu}",
	                   (unsigned long long)lines, (unsigned long long)words, (unsigned long long)chars, n);
	mcpwasm_result_json(res, j.data, j.len);
	mcpwasm_buf_free(&j);
}

/* utf8_len returns the length of the UTF-8 sequence starting with byte c (1 for a stray
 * continuation byte, so reversal never loops or splits further). */
static size_t utf8_len(unsigned char c) {
	if (c >= 0xF0) return 4;
	if (c >= 0xE0) return 3;
	if (c >= 0xC0) return 2;
	return 1;
}

/* transform applies op (upper, lower, reverse) to text. An unknown op is a tool error: the
 * schema leaves op a free string so the guest's own check shows. */
static void transform(const char *tool, const mcpwasm_args *args, mcpwasm_result *res) {
	const char *s, *op;
	size_t n;
	if (mcpwasm_arg_string(args, "text", &s, &n) || mcpwasm_arg_string(args, "op", &op, NULL)) {
		mcpwasm_result_error(res, "text and op: want strings");
		return;
	}
	mcpwasm_buf b = {0};
	if (strcmp(op, "upper") == 0 || strcmp(op, "lower") == 0) {
		int up = op[0] == 'u';
		mcpwasm_buf_append(&b, s, n);
		for (size_t i = 0; i < b.len && !b.oom; i++) {
			char c = b.data[i];
			if (up && c >= 'a' && c <= 'z') b.data[i] = c - 32;
			if (!up && c >= 'A' && c <= 'Z') b.data[i] = c + 32;
		}
	} else if (strcmp(op, "reverse") == 0) {
		/* reverse by code point: copy each UTF-8 sequence, last first */
		size_t starts = 0;
		mcpwasm_buf_append(&b, s, n); /* same size as the output */
		size_t w = n;
		for (size_t i = 0; i < n && !b.oom; i += starts) {
			starts = utf8_len((unsigned char)s[i]);
			if (starts > n - i) starts = n - i;
			w -= starts;
			memcpy(b.data + w, s + i, starts);
		}
	} else {
		mcpwasm_result_errorf(res, "unknown op \"%s\": want upper, lower or reverse", op);
		return;
	}
	mcpwasm_result_text(res, b.data ? b.data : "", b.len);
	mcpwasm_buf_free(&b);
}

/* misbehave exists to exercise the host's limits: "loop" spins until the time limit stops it,
 * "trap" executes `unreachable`. */
static void misbehave(const char *tool, const mcpwasm_args *args, mcpwasm_result *res) {
	const char *mode;
	if (mcpwasm_arg_string(args, "mode", &mode, NULL) == MCPWASM_ARG_OK) {
		if (strcmp(mode, "loop") == 0) {
			volatile uint64_t spins = 0;
			for (;;) spins++;
		}
		if (strcmp(mode, "trap") == 0) __builtin_trap();
	}
	mcpwasm_result_error(res, "mode: want loop or trap");
}

void mcpwasm_init(void) {
	mcpwasm_set_info("ctext", "1.0.0", "Text tools written in C");
	mcpwasm_add_tool("wc", "Counts lines, words, characters and bytes of text, like wc(1).",
	                 "{\"type\":\"object\",\"properties\":{\"text\":{\"type\":\"string\"}},"
	                 "\"required\":[\"text\"],\"additionalProperties\":false}",
	                 wc);
	mcpwasm_add_tool("transform", "Upper-cases, lower-cases (ASCII) or reverses (by character) text.",
	                 "{\"type\":\"object\",\"properties\":{\"text\":{\"type\":\"string\"},"
	                 "\"op\":{\"type\":\"string\",\"description\":\"upper, lower or reverse\"}},"
	                 "\"required\":[\"text\",\"op\"]}",
	                 transform);
	mcpwasm_add_tool("misbehave", "Test hook: loops forever (mode loop) or traps (mode trap).",
	                 "{\"type\":\"object\",\"properties\":{\"mode\":{\"enum\":[\"loop\",\"trap\"]}},"
	                 "\"required\":[\"mode\"]}",
	                 misbehave);
	/* A tool's _meta reaches clients in tools/list (abi/ABI.md §4). */
	mcpwasm_set_tool_meta("wc", "{\"com.example/origin\":\"ctext\"}");
}

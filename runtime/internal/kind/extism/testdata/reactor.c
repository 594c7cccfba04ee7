// reactor.c — a hyper-mcp v1 plugin built as a WASI reactor with wasi-libc, the way Rust
// plugins for wasm32-wasip1 are: it imports wasi_snapshot_preview1, exports _initialize (which
// runs its constructors), and writes to stdout. Its one tool answers whether the constructor
// ran and what snprintf made of its arguments.
// Rebuild (from this directory):
//   clang-16 --target=wasm32-wasi -mexec-model=reactor -O2 -Wl,--strip-all -o reactor.wasm reactor.c
#include <stdio.h>
#include <string.h>
#include <stdlib.h>

#define ENV(n) __attribute__((import_module("extism:host/env"), import_name(n)))
ENV("alloc") unsigned long long x_alloc(unsigned long long);
ENV("store_u8") void x_store_u8(unsigned long long, unsigned int);
ENV("output_set") void x_output_set(unsigned long long, unsigned long long);
ENV("input_length") unsigned long long x_input_length(void);
ENV("input_load_u8") unsigned int x_input_load_u8(unsigned long long);

static int initialized;
__attribute__((constructor)) static void init(void) { initialized = 42; }

static int output(const char *s) {
	size_t n = strlen(s);
	unsigned long long off = x_alloc(n);
	for (size_t i = 0; i < n; i++) x_store_u8(off + i, (unsigned char)s[i]);
	x_output_set(off, n);
	return 0;
}

__attribute__((export_name("describe"))) int describe(void) {
	return output("{\"tools\":[{\"name\":\"hello\",\"inputSchema\":{\"type\":\"object\"}}]}");
}

__attribute__((export_name("call"))) int call(void) {
	unsigned long long n = x_input_length();
	char *in = malloc(n + 1);
	for (unsigned long long i = 0; i < n; i++) in[i] = (char)x_input_load_u8(i);
	in[n] = 0;
	printf("plugin stdout: %llu bytes of input\n", n);
	fflush(stdout);
	char text[128];
	snprintf(text, sizeof text, "initialized=%d input=%llu", initialized, n);
	free(in);
	char out[256];
	snprintf(out, sizeof out, "{\"content\":[{\"type\":\"text\",\"text\":\"%s\"}]}", text);
	return output(out);
}

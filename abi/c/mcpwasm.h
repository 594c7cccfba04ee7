/* mcpwasm.h — the C guest SDK for the mcpwasm guest ABI v1 (abi/ABI.md).
 *
 * Compile mcpwasm.c together with your guest as a WASI reactor:
 *
 *   clang-16 --target=wasm32-wasi -mexec-model=reactor -O2 -Iabi/c \
 *       -Wl,--strip-all -o tool.wasm abi/c/mcpwasm.c tool.c
 *
 * mcpwasm.c defines the exports (mcpwasm_abi_version, mcpwasm_alloc, mcpwasm_describe,
 * mcpwasm_call); wasi-libc exports `memory` and `_initialize`. Your code defines one function,
 *
 *   void mcpwasm_init(void);
 *
 * which the SDK calls once, before the first describe or call, to register the guest's info
 * and tools. A handler reads its arguments with mcpwasm_arg_* and fills in the result with
 * mcpwasm_result_*; returning without adding anything yields an empty content list.
 *
 * Memory: strings returned by mcpwasm_arg_string belong to the SDK and are freed when the
 * handler returns. Strings passed to mcpwasm_set_info / mcpwasm_add_tool are not copied: pass
 * literals (or anything that lives as long as the instance).
 *
 * Nothing here is thread-safe; the host never runs two calls in one instance at once.
 */
#ifndef MCPWASM_H
#define MCPWASM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- ABI constants (abi/ABI.md §6.2, §6) ------------------------------------------------ */

#define MCPWASM_ABI_VERSION 1

enum mcpwasm_status {
	MCPWASM_OK = 0,
	MCPWASM_DENIED = 1,
	MCPWASM_NOT_FOUND = 2,
	MCPWASM_INVALID = 3,
	MCPWASM_TOO_LARGE = 4,
	MCPWASM_TIMEOUT = 5,
	MCPWASM_FAILED = 6,
	MCPWASM_CANCELLED = 7,
	MCPWASM_UNAVAILABLE = 8,
};

enum mcpwasm_level {
	MCPWASM_DEBUG = 0,
	MCPWASM_INFO = 1,
	MCPWASM_NOTICE = 2,
	MCPWASM_WARNING = 3,
	MCPWASM_ERROR = 4,
	MCPWASM_CRITICAL = 5,
	MCPWASM_ALERT = 6,
	MCPWASM_EMERGENCY = 7,
};

/* ---- Growable byte buffer ---------------------------------------------------------------- */

/* A growable buffer. Zero-initialise it ({0}); free data with free() or mcpwasm_buf_free.
 * On allocation failure oom is set and further appends are ignored. */
typedef struct mcpwasm_buf {
	char *data;
	size_t len, cap;
	int oom;
} mcpwasm_buf;

void mcpwasm_buf_append(mcpwasm_buf *b, const char *s, size_t n);
void mcpwasm_buf_puts(mcpwasm_buf *b, const char *s); /* NUL-terminated s */
/* Appends printf-formatted text (at most 4095 bytes per call). */
void mcpwasm_buf_printf(mcpwasm_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Appends s[0:n] as a quoted JSON string: ", \, and control characters are escaped; other
 * bytes (UTF-8) are copied as they are. */
void mcpwasm_buf_json_string(mcpwasm_buf *b, const char *s, size_t n);
void mcpwasm_buf_free(mcpwasm_buf *b);

/* ---- Registration ------------------------------------------------------------------------ */

/* Arguments of one call: the JSON object the host validated against the tool's inputSchema.
 * Not NUL-terminated. */
typedef struct mcpwasm_args {
	const char *json;
	size_t len;
} mcpwasm_args;

typedef struct mcpwasm_result mcpwasm_result;

/* A tool handler. `tool` is the NUL-terminated tool name as registered. */
typedef void (*mcpwasm_handler)(const char *tool, const mcpwasm_args *args, mcpwasm_result *res);

/* Defined by the guest: registers info and tools. Called once per instance. */
void mcpwasm_init(void);

/* Sets the manifest's name (^[a-zA-Z0-9_-]{1,64}$), version and description (any may be NULL
 * except name). */
void mcpwasm_set_info(const char *name, const char *version, const char *description);

/* Registers a tool. input_schema is a JSON Schema object (its "type" must be "object"); NULL
 * means {"type":"object"}. Returns 0, or -1 if the registry is full (MCPWASM_MAX_TOOLS). */
#define MCPWASM_MAX_TOOLS 64
int mcpwasm_add_tool(const char *name, const char *description, const char *input_schema,
                     mcpwasm_handler handler);

/* Sets the _meta of the registered tool `name` to the JSON object meta_json (not copied, not
 * checked: the host refuses a guest whose tool _meta is not a JSON object, naming the tool).
 * MCP Apps names a tool's view so:
 *   {"ui":{"resourceUri":"ui://app/view.html"},"ui/resourceUri":"ui://app/view.html"}
 * (abi/ABI.md §4). Returns 0, or -1 if no tool has that name. */
int mcpwasm_set_tool_meta(const char *name, const char *meta_json);

/* ---- Arguments: a small, bounded JSON reader for flat objects ------------------------------ */

/* Results of mcpwasm_arg_*. */
enum mcpwasm_arg_status {
	MCPWASM_ARG_OK = 0,
	MCPWASM_ARG_MISSING = -1,  /* no such key at the top level of the object */
	MCPWASM_ARG_TYPE = -2,     /* the value has another JSON type */
	MCPWASM_ARG_MALFORMED = -3 /* the arguments are not valid JSON (cannot happen after host validation) */
};

/* Finds top-level key `key` and decodes its string value (escapes resolved, \u to UTF-8).
 * *out is NUL-terminated and owned by the SDK until the handler returns; *len (may be NULL)
 * excludes the NUL. */
int mcpwasm_arg_string(const mcpwasm_args *a, const char *key, const char **out, size_t *len);
/* Decodes a number value. */
int mcpwasm_arg_number(const mcpwasm_args *a, const char *key, double *out);
/* Decodes an integer value (a number with no fraction that fits int64); else MCPWASM_ARG_TYPE. */
int mcpwasm_arg_int(const mcpwasm_args *a, const char *key, int64_t *out);
/* Decodes a boolean value: *out is 1 or 0. */
int mcpwasm_arg_bool(const mcpwasm_args *a, const char *key, int *out);

/* ---- Results (abi/ABI.md §5) ---------------------------------------------------------------- */

/* Appends a text content block holding s[0:n] (escaped for you). */
void mcpwasm_result_text(mcpwasm_result *r, const char *s, size_t n);
void mcpwasm_result_textf(mcpwasm_result *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Sets structuredContent to the JSON object json[0:n] (not checked: it must be valid JSON and
 * match the tool's outputSchema, if any) and appends a text block holding the same JSON, for
 * clients that predate structured output. */
void mcpwasm_result_json(mcpwasm_result *r, const char *json, size_t n);
/* Makes the result a tool error (isError) whose only content is the message. */
void mcpwasm_result_error(mcpwasm_result *r, const char *msg);
void mcpwasm_result_errorf(mcpwasm_result *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* ---- Host imports (abi/ABI.md §6) -------------------------------------------------------- */

/* Logs msg (NUL-terminated) at level; returns a status. */
int mcpwasm_log(int level, const char *msg);
/* Reports progress; total <= 0 means unknown; msg may be NULL. */
int mcpwasm_progress(double progress, double total, const char *msg);
/* 1 if the current call was cancelled or is near its time limit. */
int mcpwasm_cancelled(void);
/* Performs a capability request of kind with JSON body req[0:n]. Returns the status; the
 * response JSON (NUL-terminated, malloc'd: free it) is stored in *resp and its length in
 * *resp_len (either may be NULL to discard). */
int mcpwasm_request(const char *kind, const char *req, size_t n, char **resp, size_t *resp_len);
/* Asks the client of the current call to sample its model (request kind "sampling", needs
 * the sampling grant; abi/ABI.md §6.7) with one user message of text prompt and at most
 * max_tokens tokens in the answer. Returns the status; *resp is the CreateMessageResult JSON
 * ({"role":"assistant","content":{"type":"text","text":…},"model":…}) or {"error":…}, as for
 * mcpwasm_request. */
int mcpwasm_sample(const char *prompt, int max_tokens, char **resp, size_t *resp_len);
/* Asks the user through the client of the current call (request kind "elicitation", needs
 * the elicitation grant) with message and requested_schema (a JSON Schema object; NULL means
 * none). Returns the status; *resp is the ElicitResult JSON ({"action":"accept","content":…},
 * or decline / cancel, which are MCPWASM_OK too) or {"error":…}. */
int mcpwasm_elicit(const char *message, const char *requested_schema, char **resp, size_t *resp_len);

#ifdef __cplusplus
}
#endif
#endif /* MCPWASM_H */

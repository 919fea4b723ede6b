/*
 * The perf map writer loaded into a Node.js process by --nodejs-mode
 * attach-maps (see docs/RUNTIMES.md, "Node.js without a restart").
 *
 * This file is NOT part of the agent: process.dlopen() loads it into the
 * target node process through the inspector.  It is a Node-API module
 * (napi_register_module_v1, a C ABI that does not change between Node
 * versions) that registers a V8 JIT code event handler, with the existing
 * code enumerated first, and appends "START LEN NAME" lines to
 * /tmp/perf-<pid>.map: the format, the names and the file of
 * --perf-basic-prof, which the perf plugin's symbolizer already reads.
 *
 * V8's two entry points are C++ (v8::Isolate::GetCurrent and
 * v8::Isolate::SetJitCodeEventHandler), looked up by their mangled names
 * in the node binary, which exports them for native addons.  The layout
 * of struct JitCodeEvent read here (type, code_type, code_start,
 * code_len, script, user_data, wasm_source_info, then name.str and
 * name.len: offsets 0, 4, 8, 16, 24, 32, 40, 48, 56) was checked with
 * offsetof() against V8 11.3's v8-callbacks.h (Node 20); the evaluated
 * expression refuses any other V8 major before loading this file, since
 * the layout has changed before (wasm_source_info was inserted).
 *
 * The handler runs on whichever V8 thread logs code and must never fail
 * loudly: it formats into a stack buffer and does one write(2) per line
 * on an O_APPEND descriptor, and drops the line on any error.
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* Node-API: the few calls used, declared here (node_api.h is C, but the
 * agent does not build-depend on Node's headers). */
typedef struct napi_env__ *napi_env;
typedef struct napi_value__ *napi_value;
typedef int napi_status;

extern napi_status napi_get_boolean(napi_env, int, napi_value *);
extern napi_status napi_create_string_utf8(napi_env, const char *, size_t,
    napi_value *);
extern napi_status napi_set_named_property(napi_env, napi_value,
    const char *, napi_value);

/* struct v8::JitCodeEvent, the prefix this writer reads. */
struct nw_jit_event {
	int32_t type;	/* CODE_ADDED = 0 */
	int32_t code_type;
	void *code_start;
	size_t code_len;
	void *script;	/* Local<UnboundScript> */
	void *user_data;
	void *wasm_source_info;
	const char *name_str;	/* name.str, not NUL-terminated */
	size_t name_len;
};

#define NW_CODE_ADDED		0
#define NW_BYTE_CODE		0	/* code_type: bytecode, never a pc */
#define NW_ENUM_EXISTING	1	/* kJitCodeEventEnumExisting */
#define NW_NAME_MAX		1024

typedef void *(*nw_get_current_fn)(void);
typedef void (*nw_handler_fn)(const struct nw_jit_event *);
typedef void (*nw_set_handler_fn)(void *, int, nw_handler_fn);

napi_value napi_register_module_v1(napi_env, napi_value);

static int nw_fd = -1;

static void
nw_on_code(const struct nw_jit_event *ev)
{
	char line[NW_NAME_MAX + 64];
	size_t nlen, i;
	int n;

	if (ev == NULL || ev->type != NW_CODE_ADDED ||
	    ev->code_type == NW_BYTE_CODE || nw_fd == -1 ||
	    ev->code_start == NULL || ev->code_len == 0)
		return;
	n = snprintf(line, sizeof(line), "%lx %zx ",
	    (unsigned long)(uintptr_t)ev->code_start, ev->code_len);
	if (n < 0 || (size_t)n >= sizeof(line))
		return;
	nlen = ev->name_str == NULL ? 0 : ev->name_len;
	if (nlen > NW_NAME_MAX)
		nlen = NW_NAME_MAX;
	/* One entry per line: a newline in a name would split it. */
	for (i = 0; i < nlen; i++) {
		char c = ev->name_str[i];

		line[n++] = (c == '\n' || c == '\r') ? ' ' : c;
	}
	line[n++] = '\n';
	(void)write(nw_fd, line, (size_t)n);
}

static void
nw_set(napi_env env, napi_value exports, const char *key, const char *val)
{
	napi_value v;

	if (napi_create_string_utf8(env, val, strlen(val), &v) == 0)
		(void)napi_set_named_property(env, exports, key, v);
}

__attribute__((visibility("default"))) napi_value
napi_register_module_v1(napi_env env, napi_value exports)
{
	nw_get_current_fn get_current;
	nw_set_handler_fn set_handler;
	napi_value ok;
	void *isolate;
	char path[64];
	const char *err = NULL;

	get_current = (nw_get_current_fn)dlsym(RTLD_DEFAULT,
	    "_ZN2v87Isolate10GetCurrentEv");
	set_handler = (nw_set_handler_fn)dlsym(RTLD_DEFAULT,
	    "_ZN2v87Isolate22SetJitCodeEventHandlerENS_19JitCodeEventOptions"
	    "EPFvPKNS_12JitCodeEventEE");
	if (get_current == NULL || set_handler == NULL) {
		err = "V8 entry points not exported by this node binary";
		goto out;
	}
	if ((isolate = get_current()) == NULL) {
		err = "no current V8 isolate";
		goto out;
	}
	if (nw_fd == -1) {
		snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)getpid());
		nw_fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW |
		    O_CLOEXEC, 0644);
		if (nw_fd == -1) {
			err = "cannot open /tmp/perf-PID.map";
			goto out;
		}
		set_handler(isolate, NW_ENUM_EXISTING, nw_on_code);
	}
out:
	if (napi_get_boolean(env, err == NULL, &ok) == 0)
		(void)napi_set_named_property(env, exports, "ok", ok);
	if (err != NULL)
		nw_set(env, exports, "error", err);
	return (exports);
}

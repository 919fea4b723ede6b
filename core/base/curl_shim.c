/*
 * libcurl loaded at run time (see curl_shim.h).  RTLD_LOCAL keeps its
 * symbols, and those of the TLS libraries it pulls in, out of the global
 * namespace that plugins resolve against.
 */
#include "config.h"

#include <dlfcn.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>

#include "base/curl_shim.h"

#define CURL_SHIM_LIB	"libcurl.so.4"

struct curl_shim curl_shim;

static const struct {
	const char *name;
	size_t off;
} curl_shim_syms[] = {
#define S(f) { "curl_" #f, offsetof(struct curl_shim, f) }
	S(global_init),
	S(global_cleanup),
	S(easy_init),
	S(easy_cleanup),
	S(easy_setopt),
	S(easy_getinfo),
	S(easy_strerror),
	S(slist_append),
	S(slist_free_all),
	S(multi_init),
	S(multi_cleanup),
	S(multi_setopt),
	S(multi_add_handle),
	S(multi_remove_handle),
	S(multi_assign),
	S(multi_socket_action),
	S(multi_info_read),
#undef S
};

int
curl_shim_load(char *err, size_t errlen)
{
	static int loaded, rc;
	static char msg[256];
	void *h, *sym;
	size_t i;

	if (!loaded) {
		loaded = 1;
		if ((h = dlopen(CURL_SHIM_LIB, RTLD_NOW | RTLD_LOCAL)) ==
		    NULL) {
			snprintf(msg, sizeof(msg), "%s not found: install "
			    "libcurl4 (%s)", CURL_SHIM_LIB, dlerror());
			rc = -ENOENT;
			goto out;
		}
		for (i = 0; i < sizeof(curl_shim_syms) /
		    sizeof(curl_shim_syms[0]); i++) {
			if ((sym = dlsym(h, curl_shim_syms[i].name)) == NULL) {
				snprintf(msg, sizeof(msg), "%s lacks %s: "
				    "libcurl 7.85 or later is needed",
				    CURL_SHIM_LIB, curl_shim_syms[i].name);
				rc = -ENOSYS;
				dlclose(h);
				goto out;
			}
			/* POSIX: a function pointer fits in a void *. */
			*(void **)((char *)&curl_shim +
			    curl_shim_syms[i].off) = sym;
		}
	}
out:
	if (rc != 0 && err != NULL && errlen > 0)
		snprintf(err, errlen, "%s", msg);
	return (rc);
}

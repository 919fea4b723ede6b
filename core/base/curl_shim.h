/*
 * libcurl loaded at run time: the daemon does not link it, so an agent that
 * never speaks HTTP never maps libcurl, OpenSSL, GnuTLS and the rest of
 * what libcurl drags in (several MB of resident pages).  Only the files
 * that drive curl (core/base/http.c) include this, after <curl/curl.h>.
 */
#ifndef GP_CURL_SHIM_H
#define GP_CURL_SHIM_H

#include <stddef.h>

#include <curl/curl.h>

/* Every libcurl function the daemon calls, filled by curl_shim_load(). */
struct curl_shim {
	CURLcode (*global_init)(long);
	void (*global_cleanup)(void);
	CURL *(*easy_init)(void);
	void (*easy_cleanup)(CURL *);
	CURLcode (*easy_setopt)(CURL *, CURLoption, ...);
	CURLcode (*easy_getinfo)(CURL *, CURLINFO, ...);
	const char *(*easy_strerror)(CURLcode);
	struct curl_slist *(*slist_append)(struct curl_slist *, const char *);
	void (*slist_free_all)(struct curl_slist *);
	CURLM *(*multi_init)(void);
	CURLMcode (*multi_cleanup)(CURLM *);
	CURLMcode (*multi_setopt)(CURLM *, CURLMoption, ...);
	CURLMcode (*multi_add_handle)(CURLM *, CURL *);
	CURLMcode (*multi_remove_handle)(CURLM *, CURL *);
	CURLMcode (*multi_assign)(CURLM *, curl_socket_t, void *);
	CURLMcode (*multi_socket_action)(CURLM *, curl_socket_t, int,
			    int *);
	CURLMsg *(*multi_info_read)(CURLM *, int *);
};

extern struct curl_shim curl_shim;

/*
 * dlopen libcurl.so.4 and resolve the table, once; later calls return the
 * first call's result.  0, or -ENOENT / -ENOSYS with err filled (not
 * logged: the caller knows why it wanted HTTP).
 */
int curl_shim_load(char *err, size_t errlen);

#endif

/*
 * Unit tests of core/host/host_sample.c's process reports (ABI 1.4): a process
 * profiler subscribed before or after the system profiler registers learns
 * whether one reports, gets each report once, and nothing once it or the
 * source is gone; only the registered source's reports are delivered.
 */
#include "config.h"

#include <errno.h>

#include "host/host.h"
#include "testing.h"

struct seen {
	int n;
	int32_t last;
};

static void
on_process(void *arg, int32_t pid)
{
	struct seen *s = arg;

	s->n++;
	s->last = pid;
}

int
main(void)
{
	const struct gp_host_api *api = host_api();
	struct gp_plugin_ctx *src, *other, *py, *jv;
	struct seen a = { 0, 0 }, b = { 0, 0 };

	CHECK(GP_API_HAS(api, process_subscribe) && api->abi_minor >= 4,
	    "the host table has the 1.4 members");
	src = host_ctx_new(NULL, NULL);
	other = host_ctx_new(NULL, NULL);
	py = host_ctx_new(NULL, NULL);
	jv = host_ctx_new(NULL, NULL);

	CHECK_INTEQ(api->process_subscribe(py, on_process, &a), -ENOTSUP,
	    "no source yet: -ENOTSUP, the subscription kept");
	api->process_report(src, 42);
	CHECK_INTEQ(a.n, 0, "no report from a plugin that is not the source");
	CHECK_INTEQ(api->process_source(src, 1), 0, "a source registers");
	CHECK_INTEQ(api->process_source(other, 1), -EBUSY, "one source only");
	/* asked again: a source now reports (a subscriber started first) */
	CHECK_INTEQ(api->process_subscribe(py, on_process, &a), 0,
	    "asked again, the subscriber learns of it");
	CHECK_INTEQ(api->process_subscribe(jv, on_process, &b), 0,
	    "a second subscriber");
	api->process_report(src, 42);
	CHECK(a.n == 1 && a.last == 42 && b.n == 1 && b.last == 42,
	    "a report reaches every subscriber once");
	api->process_report(other, 43);
	api->process_report(src, 0);
	CHECK(a.n == 1 && b.n == 1, "not from another plugin, nor pid 0");
	(void)api->process_subscribe(jv, NULL, NULL);
	api->process_report(src, 44);
	CHECK(a.n == 2 && a.last == 44 && b.n == 1,
	    "an unsubscribed plugin gets no more");
	host_ctx_free(py);
	api->process_report(src, 45);
	CHECK(a.n == 2, "a freed context's subscription goes with it");
	CHECK_INTEQ(api->process_subscribe(jv, on_process, &b), 0,
	    "subscribed again");
	host_ctx_free(src);
	CHECK_INTEQ(api->process_subscribe(jv, on_process, &b), -ENOTSUP,
	    "the source's context freed: no source");
	CHECK_INTEQ(api->process_source(other, 1), 0, "another source may register");
	CHECK_INTEQ(api->process_subscribe(jv, on_process, &b), 0,
	    "and the subscriber learns of it");
	api->process_report(other, 46);
	CHECK(b.n == 2 && b.last == 46, "a later source reports");
	host_ctx_free(other);
	host_ctx_free(jv);
	return (testing_done());
}

/* Unit tests of core/meta/metrics.c and core/meta/appmeta.c against this host. */
#include "config.h"

#include <sys/wait.h>

#include <limits.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include <event2/event.h>
#include <json-c/json.h>

#include "base/log.h"
#include "base/procfs.h"
#include "meta/meta.h"
#include "testing.h"

static void
test_cpu_mem_math(void)
{
	struct cpu_times a = { 1000, 800 }, b = { 2000, 1550 };

	CHECK(metrics_cpu_percent(&a, &b) == 25.0, "busy 250 of 1000 = 25%");
	b.idle = 1333;
	CHECK(metrics_cpu_percent(&a, &b) == 46.7, "rounded to 0.1");
	CHECK(metrics_cpu_percent(&a, &a) < 0, "no delta: unknown");
	CHECK(metrics_mem_percent(16000, 4000) == 75.0, "mem used 75%");
	CHECK(metrics_mem_percent(0, 0) < 0, "no MemTotal: unknown");
}

static void
test_cycle(void)
{
	struct event_base *base = event_base_new();
	struct metrics *m = metrics_new(base);
	struct json_object *o, *v;
	volatile unsigned long spin = 0;
	int i;

	for (i = 0; i < 30000000; i++)	/* ~50 ms of CPU for a delta */
		spin += i;
	usleep(20000);
	o = metrics_cycle(m);
	CHECK(json_object_object_get_ex(o, "cpu_avg", &v) &&
	    json_object_is_type(v, json_type_double) &&
	    json_object_get_double(v) >= 0 &&
	    json_object_get_double(v) <= 100, "cpu_avg in [0, 100]");
	CHECK(json_object_object_get_ex(o, "mem_avg", &v) &&
	    json_object_is_type(v, json_type_double) &&
	    json_object_get_double(v) > 0 && json_object_get_double(v) < 100,
	    "mem_avg from the start sample");
	json_object_put(o);
	o = metrics_cycle(NULL);
	CHECK(json_object_object_get_ex(o, "cpu_avg", &v) && v == NULL &&
	    json_object_object_get_ex(o, "mem_avg", &v) && v == NULL,
	    "disabled: both null");
	json_object_put(o);
	metrics_free(m);
	event_base_free(base);
}

/* An entry as appmeta_for_pid builds it, of a program named i. */
static struct json_object *
name_md(int i)
{
	struct json_object *o = json_object_new_object();
	char path[64];

	snprintf(path, sizeof(path), "/tmp/u/prog-%d", i);
	json_object_object_add(o, "exe", json_object_new_string(
	    "/usr/bin/python3.11"));
	json_object_object_add(o, "execfn", json_object_new_string(path));
	json_object_object_add(o, "arch", json_object_new_string("x86_64"));
	return (o);
}

static void
test_appmeta(void)
{
	struct json_object *o, *v, *list, *extra;
	struct appmeta_set *set;
	char exe[PATH_MAX];
	ssize_t n;
	int i, ok;

	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	exe[n > 0 ? n : 0] = '\0';
	o = appmeta_base(getpid());
	CHECK(o != NULL, "base metadata of this process");
	CHECK(json_object_object_get_ex(o, "exe", &v) &&
	    strcmp(json_object_get_string(v), exe) == 0, "exe");
	CHECK(json_object_object_get_ex(o, "execfn", &v) && v != NULL &&
	    strstr(json_object_get_string(v), "test_metrics") != NULL,
	    "execfn from AT_EXECFN");
	CHECK(json_object_object_get_ex(o, "arch", &v) && v != NULL &&
	    strcmp(json_object_get_string(v), "unknown") != 0, "arch");
	json_object_put(o);
	CHECK(appmeta_base(INT32_MAX - 1) == NULL, "gone process: NULL");

	list = json_object_new_array();
	json_object_array_add(list, NULL);
	extra = json_object_new_object();
	json_object_object_add(extra, "python_version",
	    json_object_new_string("3.11.2"));
	set = appmeta_set_new(list);
	CHECK_INTEQ(appmeta_set_index(set, appmeta_for_pid(getpid(), NULL)), 1,
	    "first entry is 1");
	CHECK_INTEQ(appmeta_set_index(set, appmeta_for_pid(getpid(), NULL)), 1,
	    "equal object deduplicated");
	CHECK_INTEQ(appmeta_set_index(set, appmeta_for_pid(getpid(), extra)), 2,
	    "plugin keys make another entry");
	CHECK_INTEQ(appmeta_set_index(set, NULL), 0, "none: 0");
	CHECK_INTEQ(json_object_array_length(list), 3, "null + 2 entries");
	/* A user's program under 20,000 names: each its own entry, each
	 * found again (the cost is bench/appmeta_cost's). */
	for (i = 0, ok = 1; i < 20000; i++)
		ok &= appmeta_set_index(set, name_md(i)) == 3 + i;
	for (i = 0; i < 20000; i++)
		ok &= appmeta_set_index(set, name_md(19999 - i)) == 20002 - i;
	CHECK(ok && json_object_array_length(list) == 20003,
	    "20,000 distinct entries appended once, found again");
	appmeta_set_free(set);
	appmeta_set_free(NULL);
	json_object_put(extra);
	json_object_put(list);
}

/*
 * The base is read once per image: asked again in a cycle, the cached
 * object (its AT_EXECFN check reads all of /proc/PID/maps); after an exec
 * the new image's; not asked for in a cycle, forgotten at its end.
 */
static void
test_appmeta_cache(void)
{
	struct json_object *a, *b, *v;
	int go[2], st;
	char c = 'x';
	pid_t pid;
	int i;

	a = appmeta_base(getpid());
	b = appmeta_base(getpid());
	CHECK(a != NULL && a == b, "asked again: the same object");
	json_object_put(b);
	appmeta_sweep();	/* asked for in that cycle: kept */
	b = appmeta_base(getpid());
	CHECK(b == a, "kept across a cycle it was asked for in");
	json_object_put(b);
	appmeta_sweep();
	appmeta_sweep();	/* a cycle without it: forgotten */
	b = appmeta_base(getpid());
	CHECK(b != NULL && b != a && json_object_equal(a, b),
	    "forgotten after a cycle without it, read again the same");
	json_object_put(a);
	json_object_put(b);

	/* a shell that execs sleep once told to: another image, same pid */
	if (pipe(go) != 0 || (pid = fork()) < 0) {
		CHECK(0, "pipe and fork");
		return;
	}
	if (pid == 0) {
		dup2(go[0], 0);
		close(go[1]);
		execl("/bin/sh", "sh", "-c", "read x; exec sleep 5", (char *)NULL);
		_exit(127);
	}
	close(go[0]);
	for (i = 0; i < 200 && ((a = appmeta_base(pid)) == NULL ||
	    !json_object_object_get_ex(a, "execfn", &v) || v == NULL ||
	    strcmp(json_object_get_string(v), "/bin/sh") != 0); i++) {
		json_object_put(a);
		a = NULL;
		usleep(10000);
	}
	CHECK(a != NULL, "the shell's base");
	(void)write(go[1], &c, 1);
	close(go[1]);
	for (i = 0; i < 200; i++) {
		b = appmeta_base(pid);
		if (b != NULL && b != a)
			break;
		json_object_put(b);
		b = NULL;
		usleep(10000);
	}
	CHECK(b != NULL && json_object_object_get_ex(b, "exe", &v) &&
	    strstr(json_object_get_string(v), "sleep") != NULL,
	    "after its exec: the new image's base");
	json_object_put(a);
	json_object_put(b);
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
}

int
main(void)
{
	log_init(0, "test_metrics");
	test_cpu_mem_math();
	test_cycle();
	test_appmeta();
	test_appmeta_cache();
	return (testing_done());
}

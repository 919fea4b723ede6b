/* Unit tests of core/profile/profile.c: aggregation, interning, attributes. */
#include "config.h"

#include <errno.h>

#include <gprofiler/plugin.h>
#include <json-c/json.h>

#include "base/log.h"
#include "profile/profile.h"
#include "testing.h"

struct seen {
	int n;
	uint64_t sum;
	int pid_frames_ok;
	const char *first_frame;
};

static int
visit(const struct profile_stack *s, void *arg)
{
	struct seen *v = arg;

	v->n++;
	v->sum += s->count;
	if (s->pid == 42 && s->nframes == 2 && strcmp(s->frames[1], "b") == 0)
		v->pid_frames_ok = 1;
	if (v->first_frame == NULL && s->nframes > 0)
		v->first_frame = s->frames[0];
	return (0);
}

static int
stop_early(const struct profile_stack *s, void *arg)
{
	(*(int *)arg)++;
	return (7);
}

static int
count_pid(int32_t pid, void *arg)
{
	(*(int *)arg)++;
	return (0);
}

static void
test_aggregate(void)
{
	struct profile *p = profile_new();
	const char *ab[] = { "a", "b" }, *ac[] = { "a", "c" };
	char a2[] = "a", b2[] = "b";
	const char *ab2[] = { a2, b2 };
	struct seen v = { 0 };
	int n = 0;

	CHECK_INTEQ(profile_add_stack(p, 42, "py", ab, 2, 3), 0, "add");
	CHECK_INTEQ(profile_add_stack(p, 42, "py", ab2, 2, 4), 0,
	    "same text, other buffers");
	profile_add_stack(p, 42, "py", ac, 2, 1);
	profile_add_stack(p, 42, "py2", ab, 2, 1);	/* comm is in the key */
	profile_add_stack(p, 7, "sh", ab, 2, 5);
	profile_add_stack(p, 7, "sh", NULL, 0, 2);	/* comm-only stack */
	CHECK_INTEQ(profile_add_stack(p, 7, "sh", ab, 2, 0), 0,
	    "count 0 accepted");
	CHECK_INTEQ(profile_add_stack(p, 7, NULL, ab, 2, 1), -EINVAL,
	    "NULL comm refused");
	profile_foreach(p, visit, &v);
	CHECK_INTEQ(v.n, 5, "identical stacks summed, distinct kept");
	CHECK_INTEQ(v.sum, 16, "counts summed");
	CHECK(v.pid_frames_ok, "frame views root first");
	CHECK_INTEQ(profile_total(p), 16, "total");
	CHECK_INTEQ(profile_pid_total(p, 42), 9, "pid total");
	CHECK_INTEQ(profile_pid_total(p, 99), 0, "absent pid total 0");
	CHECK_INTEQ(profile_npids(p), 2, "two pids");
	profile_foreach_pid(p, count_pid, &n);
	CHECK_INTEQ(n, 2, "foreach_pid visits both");
	n = 0;
	CHECK_INTEQ(profile_foreach(p, stop_early, &n), 7,
	    "callback's non-zero return stops and is returned");
	CHECK_INTEQ(n, 1, "stopped after the first");
	memset(&v, 0, sizeof(v));
	profile_foreach_in_pid(p, 7, visit, &v);
	CHECK_INTEQ(v.sum, 7, "foreach_in_pid sees one pid only");
	profile_free(p);
	profile_free(NULL);
}

static void
test_attributes(void)
{
	struct profile *p = profile_new();
	const char *f[] = { "x" };
	struct json_object *md = json_object_new_object();

	profile_add_stack(p, 1, "c", f, 1, 1);
	CHECK(profile_pid_container(p, 1) == NULL, "no container");
	profile_set_container(p, 1, "web");
	CHECK_STREQ(profile_pid_container(p, 1), "web", "container set");
	profile_set_container(p, 1, "");
	CHECK(profile_pid_container(p, 1) == NULL, "empty clears");
	profile_set_appid(p, 1, "python: x.py");
	CHECK_STREQ(profile_pid_appid(p, 1), "python: x.py", "appid");
	profile_set_error(p, 2, "java", GP_PID_ERROR, "process went down");
	CHECK_STREQ(profile_pid_error(p, 2),
	    "[Profiling error: process went down]", "error frame text");
	profile_set_error(p, 3, "ruby", GP_PID_SKIPPED, "safemode");
	CHECK_STREQ(profile_pid_error(p, 3), "[Profiling skipped: safemode]",
	    "skip frame text");
	CHECK_STREQ(profile_pid_comm(p, 3), "ruby", "comm of an error pid");
	CHECK_INTEQ(profile_pid_total(p, 2), 0, "error pid has no samples");
	json_object_object_add(md, "k", json_object_new_int(1));
	profile_set_appmeta(p, 1, md);
	CHECK(profile_pid_appmeta(p, 1) == md, "appmeta kept");
	profile_set_appmeta(p, 1, json_object_new_object());	/* frees md */
	profile_set_appmeta_idx(p, 1, 3);
	profile_free(p);
}

/* Many PIDs and stacks: growth keeps every stack; then memory is freed. */
static void
test_growth(void)
{
	struct profile *p = profile_new();
	char buf[32];
	const char *f[3];
	struct seen v = { 0 };
	int pid, i;

	for (pid = 1; pid <= 300; pid++)
		for (i = 0; i < 50; i++) {
			snprintf(buf, sizeof(buf), "fn%d", i);
			f[0] = "main";
			f[1] = buf;
			f[2] = "leaf";
			profile_add_stack(p, pid, "w", f, 3, 1);
			profile_add_stack(p, pid, "w", f, 3, 1);
		}
	profile_foreach(p, visit, &v);
	CHECK_INTEQ(v.n, 300 * 50, "15000 distinct stacks");
	CHECK_INTEQ(profile_total(p), 300 * 50 * 2, "all samples counted");
	CHECK_STREQ(v.first_frame, "main", "frames intact after rehash");
	profile_free(p);
}

int
main(void)
{
	log_init(0, "test_profile");
	test_aggregate();
	test_attributes();
	test_growth();
	return (testing_done());
}

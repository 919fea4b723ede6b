/*
 * What the header's list of application metadata costs a cycle whose
 * processes each have their own entry: a local user's program run under N
 * names (its AT_EXECFN differs, so its entry does).  CPU per process
 * (user + system, getrusage), side by side: the list deduplicated by
 * comparing each entry with every one kept (as it was: quadratic) and by
 * its text in a hash table (core/meta/appmeta_set.c):
 *
 *	bench/appmeta_cost [N]		(20000)
 *
 * Figures in docs/PERFORMANCE.md.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <json-c/json.h>

#include "meta/meta.h"
#include "cpu_us.h"

static struct json_object *
entry(int i)
{
	struct json_object *o = json_object_new_object();
	char path[64];

	snprintf(path, sizeof(path), "/home/u/bin/prog-%d", i);
	json_object_object_add(o, "exe", json_object_new_string(
	    "/home/u/bin/prog"));
	json_object_object_add(o, "execfn", json_object_new_string(path));
	json_object_object_add(o, "arch", json_object_new_string("x86_64"));
	return (o);
}

/* The list as it was deduplicated until the set: each with every one. */
static uint32_t
scan_index(struct json_object *list, struct json_object *md)
{
	size_t i, n = json_object_array_length(list);

	for (i = 1; i < n; i++)
		if (json_object_equal(json_object_array_get_idx(list, i), md)) {
			json_object_put(md);
			return ((uint32_t)i);
		}
	json_object_array_add(list, md);
	return ((uint32_t)n);
}

int
main(int argc, char **argv)
{
	struct json_object *list;
	struct appmeta_set *set;
	double t0, scan, hashed;
	int i, n = argc > 1 ? atoi(argv[1]) : 20000;

	if (n <= 0)
		return (2);
	list = json_object_new_array();
	json_object_array_add(list, NULL);
	t0 = cpu_us();
	for (i = 0; i < n; i++)
		(void)scan_index(list, entry(i));
	scan = cpu_us() - t0;
	json_object_put(list);

	list = json_object_new_array();
	json_object_array_add(list, NULL);
	t0 = cpu_us();
	set = appmeta_set_new(list);
	for (i = 0; i < n; i++)
		(void)appmeta_set_index(set, entry(i));
	appmeta_set_free(set);
	hashed = cpu_us() - t0;
	json_object_put(list);

	printf("%d processes, each its own entry: compared with each %.1f "
	    "us a process (%.2f s), found by text %.2f us a process "
	    "(%.3f s): %.0fx\n", n, scan / n, scan / 1e6, hashed / n,
	    hashed / 1e6, hashed > 0 ? scan / hashed : 0);
	return (0);
}

/*
 * pprof.c: the cycle as a gzip'd perftools.profiles.Profile, read back
 * with zlib and protobuf-c.  `test_pprof --dump DIR` writes the same
 * cycle's .col and .pb.gz for the independent decoder test
 * (tests/integration/810-pprof-decode.py, protoc --decode).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>
#include <zlib.h>

#include "base/log.h"
#include "core/output/profile.pb-c.h"
#include "gprofiler.h"
#include "output/output.h"
#include "profile/profile.h"
#include "testing.h"

static struct profile *
make_profile(void)
{
	static const char *const a[] = { "main_[p]", "f_[p]" };
	static const char *const b[] = { "main_[p]", "g_[p]" };
	static const char *const c[] = { "ngx", "epoll_wait_[k]" };
	static const char *const d[] = { "bad\xff", "main_[p]" };
	static const char *const g[] = { "run", "k(float*)_[G]", "mad_[g]",
	    "sbid_[g]", "0x1a0_[g]" };
	struct profile *p = profile_new();

	profile_add_stack(p, 10, "python3", a, 2, 5);
	profile_add_stack(p, 10, "python3", b, 2, 2);
	profile_add_stack(p, 20, "nginx", c, 2, 4);
	profile_add_stack(p, 30, "odd", d, 2, 1);
	profile_add_stack(p, 40, "gpu", g, 5, 12);
	profile_set_container(p, 20, "web");
	return (p);
}

static void
cycle_init(struct cycle_output *co, struct profile *p, unsigned mode,
    int64_t freq)
{
	memset(co, 0, sizeof(*co));
	co->profile = p;
	co->header = json_tokener_parse("{\"application_metadata_enabled\": "
	    "false}");
	co->start.tv_sec = 1736334000;
	co->end.tv_sec = 1736334060;
	co->end.tv_nsec = 500000000;
	co->mode = mode;
	co->frequency = freq;
}

static Perftools__Profiles__Profile *
decode(const unsigned char *gz, size_t len)
{
	Perftools__Profiles__Profile *pr;
	unsigned char *raw;
	z_stream z;
	size_t cap = 1 << 20;

	memset(&z, 0, sizeof(z));
	raw = malloc(cap);
	if (inflateInit2(&z, 15 + 16) != Z_OK)
		return (NULL);
	z.next_in = (unsigned char *)gz;
	z.avail_in = (uInt)len;
	z.next_out = raw;
	z.avail_out = (uInt)cap;
	if (inflate(&z, Z_FINISH) != Z_STREAM_END) {
		inflateEnd(&z);
		free(raw);
		return (NULL);
	}
	pr = perftools__profiles__profile__unpack(NULL, z.total_out, raw);
	inflateEnd(&z);
	free(raw);
	return (pr);
}

static const char *
str(const Perftools__Profiles__Profile *pr, int64_t i)
{
	return (i >= 0 && (size_t)i < pr->n_string_table ?
	    pr->string_table[i] : "(bad index)");
}

static const char *
frame(const Perftools__Profiles__Profile *pr, uint64_t loc)
{
	size_t i;

	for (i = 0; i < pr->n_location; i++)
		if (pr->location[i]->id == loc)
			return (str(pr, pr->function[pr->location[i]->line[0]->
			    function_id - 1]->name));
	return ("(no location)");
}

/* The label key's string (or "#num") of a sample, NULL if absent. */
static const char *
label(const Perftools__Profiles__Profile *pr,
    const Perftools__Profiles__Sample *s, const char *key, int64_t *num)
{
	size_t i;

	for (i = 0; i < s->n_label; i++)
		if (strcmp(str(pr, s->label[i]->key), key) == 0) {
			if (num != NULL)
				*num = s->label[i]->num;
			return (str(pr, s->label[i]->str));
		}
	return (NULL);
}

static const Perftools__Profiles__Sample *
sample_with_leaf(const Perftools__Profiles__Profile *pr, const char *leaf)
{
	size_t i;

	for (i = 0; i < pr->n_sample; i++)
		if (pr->sample[i]->n_location_id > 0 && strcmp(frame(pr,
		    pr->sample[i]->location_id[0]), leaf) == 0)
			return (pr->sample[i]);
	return (NULL);
}

static void
test_cpu(void)
{
	struct cycle_output co;
	Perftools__Profiles__Profile *pr;
	const Perftools__Profiles__Sample *s;
	unsigned char *gz;
	size_t len, i, nmain = 0;
	int64_t pid = 0, total = 0;

	cycle_init(&co, make_profile(), MODE_CPU, 11);
	gz = pprof_render(&co, &len);
	CHECK(gz != NULL && len > 2 && gz[0] == 0x1f && gz[1] == 0x8b,
	    "gzip stream");
	pr = decode(gz, len);
	CHECK(pr != NULL, "decodes as perftools.profiles.Profile");
	if (pr == NULL)
		return;
	CHECK(pr->n_sample_type == 2 &&
	    strcmp(str(pr, pr->sample_type[0]->type), "samples") == 0 &&
	    strcmp(str(pr, pr->sample_type[0]->unit), "count") == 0 &&
	    strcmp(str(pr, pr->sample_type[1]->type), "cpu") == 0 &&
	    strcmp(str(pr, pr->sample_type[1]->unit), "nanoseconds") == 0,
	    "sample types samples/count, cpu/nanoseconds");
	CHECK_INTEQ(pr->period, 1000000000 / 11, "period = 1e9 / frequency");
	CHECK(pr->period_type != NULL && strcmp(str(pr,
	    pr->period_type->type), "cpu") == 0, "period type cpu");
	CHECK_INTEQ(pr->time_nanos, 1736334000LL * 1000000000, "time_nanos");
	CHECK_INTEQ(pr->duration_nanos, 60500000000LL, "duration_nanos");
	CHECK_STREQ(str(pr, 0), "", "string_table[0] is empty");
	CHECK_INTEQ(pr->n_sample, 5, "one sample per stack");
	for (i = 0; i < pr->n_sample; i++)
		total += pr->sample[i]->value[0];
	CHECK_INTEQ(total, 24, "total samples");
	s = sample_with_leaf(pr, "f_[p]");
	CHECK(s != NULL && s->n_location_id == 2 &&
	    strcmp(frame(pr, s->location_id[1]), "main_[p]") == 0,
	    "locations leaf first");
	CHECK(s != NULL && s->value[0] == 5 &&
	    s->value[1] == 5LL * (1000000000 / 11), "values count and ns");
	CHECK(s != NULL && strcmp(label(pr, s, "comm", NULL), "python3") == 0 &&
	    label(pr, s, "pid", &pid) != NULL && pid == 10 &&
	    label(pr, s, "container", NULL) == NULL,
	    "labels pid, comm; no empty container");
	s = sample_with_leaf(pr, "epoll_wait_[k]");
	CHECK(s != NULL && label(pr, s, "container", NULL) != NULL &&
	    strcmp(label(pr, s, "container", NULL), "web") == 0,
	    "container label");
	for (i = 0; i < pr->n_function; i++)
		if (strcmp(str(pr, pr->function[i]->name), "main_[p]") == 0)
			nmain++;
	CHECK_INTEQ(nmain, 1, "functions deduplicated");
	CHECK_INTEQ(pr->n_function, pr->n_location,
	    "one location per function");
	s = sample_with_leaf(pr, "main_[p]");
	CHECK(s != NULL && strcmp(frame(pr, s->location_id[1]),
	    "bad\\xff") == 0, "invalid UTF-8 escaped by the text rule");
	s = sample_with_leaf(pr, "0x1a0_[g]");
	CHECK(s != NULL && label(pr, s, "stall", NULL) == NULL,
	    "no stall label outside gpu mode");
	perftools__profiles__profile__free_unpacked(pr, NULL);
	free(gz);
	json_object_put(co.header);
	profile_free((struct profile *)co.profile);
}

static void
test_modes(void)
{
	struct cycle_output co;
	Perftools__Profiles__Profile *pr;
	const Perftools__Profiles__Sample *s;
	unsigned char *gz;
	size_t len;

	cycle_init(&co, make_profile(), MODE_GPU, 100);
	gz = pprof_render(&co, &len);
	pr = decode(gz, len);
	s = pr != NULL ? sample_with_leaf(pr, "0x1a0_[g]") : NULL;
	CHECK(s != NULL && label(pr, s, "stall", NULL) != NULL &&
	    strcmp(label(pr, s, "stall", NULL), "sbid") == 0,
	    "gpu mode: stall type label");
	CHECK(pr != NULL && pr->period == 10000000, "gpu: period 1e9/100");
	if (pr != NULL)
		perftools__profiles__profile__free_unpacked(pr, NULL);
	free(gz);
	json_object_put(co.header);
	profile_free((struct profile *)co.profile);

	cycle_init(&co, profile_new(), MODE_ALLOCATION, 2097152);
	gz = pprof_render(&co, &len);
	pr = decode(gz, len);
	CHECK(pr != NULL && pr->n_sample == 0, "empty profile encodes");
	CHECK(pr != NULL && pr->period == 2097152 && strcmp(str(pr,
	    pr->sample_type[1]->type), "alloc_space") == 0,
	    "allocation: alloc_space/bytes, period = interval");
	if (pr != NULL)
		perftools__profiles__profile__free_unpacked(pr, NULL);
	free(gz);
	json_object_put(co.header);
	profile_free((struct profile *)co.profile);
}

static int
dump(const char *dir)
{
	struct cycle_output co;
	char path[4096], *col;
	unsigned char *gz;
	size_t len;
	FILE *f;

	cycle_init(&co, make_profile(), MODE_GPU, 100);
	col = col_render(&co, &len);
	snprintf(path, sizeof(path), "%s/p.col", dir);
	if ((f = fopen(path, "wb")) == NULL)
		return (1);
	fwrite(col, 1, len, f);
	fclose(f);
	gz = pprof_render(&co, &len);
	snprintf(path, sizeof(path), "%s/p.pb.gz", dir);
	if ((f = fopen(path, "wb")) == NULL)
		return (1);
	fwrite(gz, 1, len, f);
	fclose(f);
	free(gz);
	free(col);
	json_object_put(co.header);
	profile_free((struct profile *)co.profile);
	return (0);
}

int
main(int argc, char **argv)
{
	log_init(0, "test_pprof");
	if (argc == 3 && strcmp(argv[1], "--dump") == 0)
		return (dump(argv[2]));
	test_cpu();
	test_modes();
	return (testing_done());
}

/*
 * What the fake iaprof's model must fold into (tests/fakes/
 * fake_iaprof_model.c), derived by hand from docs/specs/iaprof.md §5: per
 * block, kernels 1 and 2 once, kernel 3 in even blocks.  Shared by the plugin
 * tests; run g > 1 of the fake suffixes every text with "-r<g>".
 */
#ifndef IAPROF_MODEL_H
#define IAPROF_MODEL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct model_stack {
	int kernel;		/* 1..3 */
	const char *fmt;	/* %s: the run's text suffix */
	unsigned long long per_block;
};

#define M_STACK "_start;__libc_start_main;main;run;" \
	"zeCommandListAppendLaunchKernel%1$s"
#define M_K1 "4242 python3%1$s;" M_STACK ";-;/src/matmul.cpp%1$s_[G];" \
	"matmul_kernel(float*, float*, float*)%1$s_[G];"
#define M_K2 "4242 python3%1$s;" M_STACK ";-;[unknown]_[G];" \
	"reduce_sum%1$s_[G];"
#define M_K3 "5151 bench%1$s;-;/src/conv.cl%1$s_[G];conv2d|v2%1$s_[G];"

static const struct model_stack model_stacks[] = {
	{ 1, M_K1 "mad%1$s_[g];active_[g];0x1a0_[g]", 3 },
	{ 1, M_K1 "mad%1$s_[g];dist_acc_[g];0x1a0_[g]", 1 },
	{ 1, M_K1 "mad%1$s_[g];sbid_[g];0x1a0_[g]", 12 },
	{ 1, M_K1 "send%1$s_[g];send_[g];0x1b0_[g]", 5 },
	{ 1, M_K1 "send%1$s_[g];sbid_[g];0x1b0_[g]", 2 },
	{ 2, M_K2 "mov%1$s_[g];active_[g];0x40_[g]", 1 },
	{ 2, M_K2 "mov%1$s_[g];control_[g];0x40_[g]", 2 },
	{ 2, M_K2 "mov%1$s_[g];tdr_[g];0x40_[g]", 1 },
	{ 3, M_K3 "[failed decode]%1$s_[g];inst_fetch_[g];0x0_[g]", 4 },
	{ 3, M_K3 "[failed decode]%1$s_[g];other_[g];0x0_[g]", 1 },
	{ 3, M_K3 "[unknown]_[g];sync_[g];0x10_[g]", 7 },
};
#define MODEL_N	(sizeof(model_stacks) / sizeof(model_stacks[0]))

/* fmt with every "%1$s" replaced by sfx. */
static void
model_expand(char *out, size_t sz, const char *fmt, const char *sfx)
{
	size_t o = 0, sl = strlen(sfx);

	for (; *fmt != '\0' && o + sl + 1 < sz; fmt++) {
		if (strncmp(fmt, "%1$s", 4) == 0) {
			memcpy(out + o, sfx, sl);
			o += sl;
			fmt += 3;
		} else
			out[o++] = *fmt;
	}
	out[o] = '\0';
}

/*
 * Check "stack count" lines against the model for run `run`: every line
 * known, kernels 1-2 in k blocks, kernel 3 in about k/2.  Returns k, or -1
 * with a reason in why.
 */
static int
model_check(const char *text, int run, char *why, size_t whysz)
{
	char sfx[16] = "", key[1024], *copy, *line, *sp, *save;
	unsigned long long cnt, got[MODEL_N] = { 0 };
	long long k = -1, k3 = 0;
	size_t i;

	if (run > 1)
		snprintf(sfx, sizeof(sfx), "-r%d", run);
	copy = strdup(text);
	for (line = strtok_r(copy, "\n", &save); line != NULL;
	    line = strtok_r(NULL, "\n", &save)) {
		if ((sp = strrchr(line, ' ')) == NULL)
			goto bad;
		*sp = '\0';
		cnt = strtoull(sp + 1, NULL, 10);
		for (i = 0; i < MODEL_N; i++) {
			model_expand(key, sizeof(key), model_stacks[i].fmt, sfx);
			if (strcmp(key, line) == 0)
				break;
		}
		if (i == MODEL_N) {
			*sp = ' ';
			snprintf(why, whysz, "unexpected stack: %s", line);
			free(copy);
			return (-1);
		}
		got[i] += cnt;
	}
	free(copy);
	for (i = 0; i < MODEL_N; i++) {
		const struct model_stack *m = &model_stacks[i];
		long long kk = (long long)(got[i] / m->per_block);

		if (got[i] % m->per_block != 0) {
			snprintf(why, whysz, "stack %zu: %llu is not a multiple "
			    "of %llu", i, got[i], m->per_block);
			return (-1);
		}
		if (m->kernel == 3) {
			if (i > 0 && model_stacks[i - 1].kernel == 3 &&
			    kk != k3)
				goto uneven;
			k3 = kk;
		} else if (k == -1)
			k = kk;
		else if (kk != k)
			goto uneven;
	}
	if (k < 1 || k3 * 2 < k - 2 || k3 * 2 > k + 2) {
		snprintf(why, whysz, "blocks: %lld, even blocks: %lld", k, k3);
		return (-1);
	}
	return ((int)k);
uneven:
	snprintf(why, whysz, "stacks of one kernel disagree on the block count");
	return (-1);
bad:
	free(copy);
	snprintf(why, whysz, "bad line");
	return (-1);
}

#endif

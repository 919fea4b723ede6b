// SPDX-License-Identifier: GPL-2.0
/*
 * The legacy program, for Linux 4.18 to 5.7 (sampler_legacy.c loads it):
 * the CPU sampler's own source, built without what those kernels lack
 * (sampler.bpf.c's head says what).
 */
#define SAMPLER_LEGACY 1
#include "sampler.bpf.c"

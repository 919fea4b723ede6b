/*
 * libFuzzer target: PerfSpect's raw and summary CSV parsers and the
 * report built from them (plugins/perfspect/csv.c, report.c).
 * FUZZ_SOURCES: plugins/perfspect/csv.c plugins/perfspect/report.c
 * FUZZ_LIBS: -lz -lm
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "../plugins/perfspect/perfspect.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ps_raw raw;
	struct ps_summary sum;
	struct ps_report rep;
	struct ps_stats st;
	char err[128];
	size_t i;

	if (ps_raw_parse((const char *)data, size, &raw, err,
	    sizeof(err)) == 0) {
		for (i = 0; i < raw.nmetrics; i++)
			ps_raw_stats(&raw, i, NULL, &st);
		ps_raw_free(&raw);
	}
	if (ps_summary_parse((const char *)data, size, &sum, err,
	    sizeof(err)) == 0)
		ps_summary_free(&sum);
	/* The same bytes as summary, raw CSV and HTML at once. */
	if (ps_report_build(&rep, (const char *)data, size,
	    (const char *)data, size, (const char *)data, size, 1024, err,
	    sizeof(err)) == 0)
		ps_report_clear(&rep);
	return (0);
}

# gProfiler compatibility: the flags of gProfiler 1.57.1 (core/compat.c,
# docs/COMPAT.md) and the test generated from their list.
core_libgpcore_la_SOURCES += core/compat.c core/compat_usage.c \
	core/extmeta.c
check_PROGRAMS += tests/unit/test_extmeta tests/unit/test_logship
TESTS += tests/unit/test_extmeta tests/unit/test_logship
tests_unit_test_logship_CFLAGS = $(CORE_CFLAGS) -I$(top_srcdir)/tests
tests_unit_test_logship_LDADD = core/libgpcore.la
tests_unit_test_extmeta_CFLAGS = $(CORE_CFLAGS) -I$(top_srcdir)/tests
tests_unit_test_extmeta_LDADD = core/libgpcore.la
EXTRA_DIST += fuzz/fuzz_extmeta.c fuzz/corpus/fuzz_extmeta/static.json
TESTS += tests/compat/95-gprofiler-flags.sh tests/compat/96-studio-logs.sh \
	tests/compat/97-compat-effects.sh
EXTRA_DIST += core/compat.mk docs/COMPAT.md \
	tests/compat/gprofiler-1.57.1-flags.txt \
	tests/compat/95-gprofiler-flags.sh tests/compat/96-studio-logs.sh \
	tests/compat/97-compat-effects.sh

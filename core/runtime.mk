# core/runtime.mk: the unit tests of the daemon's runtime (the profile store
# and merge, the plugin host, runs and cycles, the .col writer, metrics);
# the sources are listed by their rooms' fragments.

RUNTIME_TEST_CFLAGS = $(CORE_CFLAGS) -I$(top_srcdir)/tests
# merge.c and metrics.c round with libm.
core_libgpcore_la_LIBADD += -lm
RUNTIME_TEST_LDADD = core/libgpcore.la -lm

check_PROGRAMS += tests/unit/test_profile
TESTS += tests/unit/test_profile
tests_unit_test_profile_SOURCES = tests/unit/test_profile.c
tests_unit_test_profile_CFLAGS = $(RUNTIME_TEST_CFLAGS)
tests_unit_test_profile_LDADD = $(RUNTIME_TEST_LDADD)

check_PROGRAMS += tests/unit/test_col
TESTS += tests/unit/test_col
tests_unit_test_col_SOURCES = tests/unit/test_col.c
tests_unit_test_col_CFLAGS = $(RUNTIME_TEST_CFLAGS)
tests_unit_test_col_LDADD = $(RUNTIME_TEST_LDADD)

check_PROGRAMS += tests/unit/test_merge
TESTS += tests/unit/test_merge
tests_unit_test_merge_SOURCES = tests/unit/test_merge.c
tests_unit_test_merge_CFLAGS = $(RUNTIME_TEST_CFLAGS)
tests_unit_test_merge_LDADD = $(RUNTIME_TEST_LDADD) -lm

check_PROGRAMS += tests/unit/test_metrics
TESTS += tests/unit/test_metrics
tests_unit_test_metrics_SOURCES = tests/unit/test_metrics.c
tests_unit_test_metrics_CFLAGS = $(RUNTIME_TEST_CFLAGS)
tests_unit_test_metrics_LDADD = $(RUNTIME_TEST_LDADD)

check_PROGRAMS += tests/unit/test_run
TESTS += tests/unit/test_run
tests_unit_test_run_SOURCES = tests/unit/test_run.c
tests_unit_test_run_CFLAGS = $(RUNTIME_TEST_CFLAGS)
tests_unit_test_run_LDADD = $(RUNTIME_TEST_LDADD)

check_PROGRAMS += tests/unit/test_host_sample
TESTS += tests/unit/test_host_sample
tests_unit_test_host_sample_SOURCES = tests/unit/test_host_sample.c
tests_unit_test_host_sample_CFLAGS = $(RUNTIME_TEST_CFLAGS)
tests_unit_test_host_sample_LDADD = $(RUNTIME_TEST_LDADD)

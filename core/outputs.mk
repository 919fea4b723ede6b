# core/outputs.mk: local output files (.col, flame graph HTML, pprof), the
# .col parser, the `flamegraph` subcommand, and their tests.
core_libgpcore_la_SOURCES += \
	core/output.c \
	core/col_header.c core/col_header.h \
	core/col_parse.c core/col_parse.h \
	core/flamegraph.c \
	core/flamegraph_main.c \
	core/pprof.c
nodist_core_libgpcore_la_SOURCES = data/flamegraph_html.c \
	core/profile.pb-c.c core/profile.pb-c.h

# pprof's schema, compiled by protoc-c into the build tree.
EXTRA_DIST += core/profile.proto
BUILT_SOURCES += core/profile.pb-c.c core/profile.pb-c.h
CLEANFILES += core/profile.pb-c.c core/profile.pb-c.h core/profile.pb-c.stamp
core/profile.pb-c.c core/profile.pb-c.h: core/profile.pb-c.stamp
core/profile.pb-c.stamp: $(srcdir)/core/profile.proto
	$(AM_V_GEN)$(MKDIR_P) core && \
	$(PROTOC_C) --proto_path=$(srcdir)/core --c_out=core \
	    $(srcdir)/core/profile.proto && touch $@

# The page template is data: embed it as a C array at build time (od and
# sed only, so VPATH and distcheck builds need nothing else).
EXTRA_DIST += data/flamegraph.html
BUILT_SOURCES += data/flamegraph_html.c
CLEANFILES += data/flamegraph_html.c
data/flamegraph_html.c: $(srcdir)/data/flamegraph.html
	$(AM_V_GEN)$(MKDIR_P) data && { \
	echo '/* Generated from data/flamegraph.html: do not edit. */'; \
	echo '#include <stddef.h>'; \
	echo 'extern const char flamegraph_template[];'; \
	echo 'extern const size_t flamegraph_template_len;'; \
	echo 'const char flamegraph_template[] = {'; \
	od -An -v -tx1 $(srcdir)/data/flamegraph.html | \
	    sed -e 's/[0-9a-f][0-9a-f]/0x&,/g'; \
	echo '0x00 };'; \
	echo 'const size_t flamegraph_template_len ='; \
	echo '    sizeof(flamegraph_template) - 1;'; \
	} >$@.tmp && mv $@.tmp $@

OUTPUTS_TEST_CFLAGS = $(CORE_CFLAGS) -I$(top_srcdir)/tests
OUTPUTS_TEST_LDADD = core/libgpcore.la

check_PROGRAMS += tests/unit/test_col_parse
TESTS += tests/unit/test_col_parse
tests_unit_test_col_parse_SOURCES = tests/unit/test_col_parse.c
tests_unit_test_col_parse_CFLAGS = $(OUTPUTS_TEST_CFLAGS)
tests_unit_test_col_parse_LDADD = $(OUTPUTS_TEST_LDADD)

check_PROGRAMS += tests/unit/test_flamegraph
TESTS += tests/unit/test_flamegraph
tests_unit_test_flamegraph_SOURCES = tests/unit/test_flamegraph.c
tests_unit_test_flamegraph_CFLAGS = $(OUTPUTS_TEST_CFLAGS)
tests_unit_test_flamegraph_LDADD = $(OUTPUTS_TEST_LDADD)

# Headless Chromium (test-only dependency: Debian `chromium`) checks the
# page as a person would see it; skipped when chromium is missing.
TESTS += tests/integration/80-flamegraph-browser.py
EXTRA_DIST += tests/integration/80-flamegraph-browser.py

check_PROGRAMS += tests/unit/test_output
TESTS += tests/unit/test_output
tests_unit_test_output_SOURCES = tests/unit/test_output.c
tests_unit_test_output_CFLAGS = $(OUTPUTS_TEST_CFLAGS)
tests_unit_test_output_LDADD = $(OUTPUTS_TEST_LDADD)

check_PROGRAMS += tests/unit/test_pprof
TESTS += tests/unit/test_pprof
tests_unit_test_pprof_SOURCES = tests/unit/test_pprof.c
tests_unit_test_pprof_CFLAGS = $(OUTPUTS_TEST_CFLAGS)
tests_unit_test_pprof_LDADD = $(OUTPUTS_TEST_LDADD)
TESTS += tests/integration/81-pprof-decode.py
EXTRA_DIST += tests/integration/81-pprof-decode.py
EXTRA_DIST += fuzz/fuzz_col.c
TESTS += tests/integration/82-flamegraph-cli.sh
EXTRA_DIST += tests/integration/82-flamegraph-cli.sh
# The one text rule for names in profiles (issue 11 #5), its test and fuzzer.
core_libgpcore_la_SOURCES += core/textesc.c
check_PROGRAMS += tests/unit/test_textesc
TESTS += tests/unit/test_textesc
tests_unit_test_textesc_SOURCES = tests/unit/test_textesc.c
tests_unit_test_textesc_CFLAGS = $(OUTPUTS_TEST_CFLAGS)
tests_unit_test_textesc_LDADD = $(OUTPUTS_TEST_LDADD)
EXTRA_DIST += fuzz/fuzz_textesc.c

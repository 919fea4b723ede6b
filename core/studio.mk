# core/studio.mk: Performance Studio integration (HTTP in the loop, upload,
# spool, heartbeat and commands), container names, cloud metadata.
core_libgpcore_la_SOURCES += \
	core/http.c \
	core/curl_shim.c core/curl_shim.h \
	core/backoff.c \
	core/studio.c \
	core/studio_ident.c \
	core/upload_body.c \
	core/upload.c \
	core/spool.c \
	core/heartbeat.c \
	core/heartbeat_state.c \
	core/command.c \
	core/command_config.c \
	core/container.c \
	core/upload_file.c \
	core/col_header.c core/col_header.h \
	core/cloud.c \
	core/cloud_probe.c

STUDIO_TEST_CFLAGS = $(CORE_CFLAGS) -I$(top_srcdir)/tests
STUDIO_TEST_LDADD = core/libgpcore.la -lm

check_PROGRAMS += tests/unit/test_upload tests/unit/test_spool
TESTS += tests/unit/test_upload tests/unit/test_spool
tests_unit_test_upload_SOURCES = tests/unit/test_upload.c
tests_unit_test_upload_CFLAGS = $(STUDIO_TEST_CFLAGS)
tests_unit_test_upload_LDADD = $(STUDIO_TEST_LDADD)
tests_unit_test_spool_SOURCES = tests/unit/test_spool.c
tests_unit_test_spool_CFLAGS = $(STUDIO_TEST_CFLAGS)
tests_unit_test_spool_LDADD = $(STUDIO_TEST_LDADD)

EXTRA_DIST += tests/fakes/studio_server.py

check_PROGRAMS += tests/unit/test_heartbeat
TESTS += tests/unit/test_heartbeat
tests_unit_test_heartbeat_SOURCES = tests/unit/test_heartbeat.c
tests_unit_test_heartbeat_CFLAGS = $(STUDIO_TEST_CFLAGS)
tests_unit_test_heartbeat_LDADD = $(STUDIO_TEST_LDADD)

check_PROGRAMS += tests/unit/test_container
TESTS += tests/unit/test_container
tests_unit_test_container_SOURCES = tests/unit/test_container.c
tests_unit_test_container_CFLAGS = $(STUDIO_TEST_CFLAGS)
tests_unit_test_container_LDADD = $(STUDIO_TEST_LDADD)

EXTRA_DIST += fuzz/fuzz_heartbeat.c fuzz/fuzz_upload_resp.c fuzz/fuzz_cgroup.c
EXTRA_DIST += fuzz/fuzz_col_header.c

check_PROGRAMS += tests/unit/test_col_header
TESTS += tests/unit/test_col_header
tests_unit_test_col_header_SOURCES = tests/unit/test_col_header.c
tests_unit_test_col_header_CFLAGS = $(STUDIO_TEST_CFLAGS)
tests_unit_test_col_header_LDADD = $(STUDIO_TEST_LDADD)

check_PROGRAMS += tests/unit/test_cloud
TESTS += tests/unit/test_cloud
tests_unit_test_cloud_SOURCES = tests/unit/test_cloud.c
tests_unit_test_cloud_CFLAGS = $(STUDIO_TEST_CFLAGS)
tests_unit_test_cloud_LDADD = $(STUDIO_TEST_LDADD)

check_PROGRAMS += tests/unit/test_studio_upload
TESTS += tests/unit/test_studio_upload
tests_unit_test_studio_upload_SOURCES = tests/unit/test_studio_upload.c
tests_unit_test_studio_upload_CFLAGS = $(STUDIO_TEST_CFLAGS) \
	-DTOP_SRCDIR='"$(abs_top_srcdir)"'
tests_unit_test_studio_upload_LDADD = $(STUDIO_TEST_LDADD)

# Integration tests through the real daemon against the fake backend.
STUDIO_IT = \
	tests/integration/50-studio-upload.sh \
	tests/integration/51-studio-outage.sh \
	tests/integration/52-studio-restart-spool.sh \
	tests/integration/53-studio-4xx.sh \
	tests/integration/54-studio-heartbeat.sh \
	tests/integration/55-studio-commands.sh \
	tests/integration/56-studio-tls.sh \
	tests/integration/57-studio-upload-file.sh \
	tests/integration/58-studio-heartbeat-garbage.sh \
	tests/integration/59-studio-reload.sh \
	tests/integration/55-studio-command-table.sh
TESTS += $(STUDIO_IT)
EXTRA_DIST += tests/integration/command_table.py
# The command table at the Studio's and the UI's real timing (30 s
# heartbeats, 60 s cycles: about 10 minutes) beside the compressed one.
SLOW_TESTS += tests/integration/55-studio-command-realtime.sh
EXTRA_DIST += tests/integration/55-studio-command-realtime.sh
EXTRA_DIST += $(STUDIO_IT) tests/integration/studio_lib.sh docs/STUDIO.md

# Cycle windows under load (core/cycle.c, issue 11).
TESTS += tests/integration/53-cycle-tiling.sh
EXTRA_DIST += tests/integration/53-cycle-tiling.sh

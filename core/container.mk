# core/container.mk: container names (cgroup -> id; Docker, podman, CRI,
# containerd), their
# protobuf subsets, tests and the runtime start-up
# script the integration tests use.
core_libgpcore_la_SOURCES += \
	core/container.c core/container.h \
	core/container_cgroup.c \
	core/container_docker.c \
	core/container_grpc.c \
	core/container_cri.c \
	core/container_containerd.c
nodist_core_libgpcore_la_SOURCES += \
	core/container_cri.pb-c.c core/container_cri.pb-c.h \
	core/container_containerd.pb-c.c core/container_containerd.pb-c.h

# The subsets of the CRI and containerd APIs we read, compiled by protoc-c.
EXTRA_DIST += core/container_cri.proto core/container_containerd.proto
BUILT_SOURCES += core/container_cri.pb-c.c core/container_cri.pb-c.h \
	core/container_containerd.pb-c.c core/container_containerd.pb-c.h
CLEANFILES += core/container_cri.pb-c.c core/container_cri.pb-c.h \
	core/container_containerd.pb-c.c core/container_containerd.pb-c.h \
	core/container_cri.pb-c.stamp core/container_containerd.pb-c.stamp
core/container_cri.pb-c.c core/container_cri.pb-c.h: \
    core/container_cri.pb-c.stamp
core/container_cri.pb-c.stamp: $(srcdir)/core/container_cri.proto
	$(AM_V_GEN)$(MKDIR_P) core && \
	$(PROTOC_C) --proto_path=$(srcdir)/core --c_out=core \
	    $(srcdir)/core/container_cri.proto && touch $@
core/container_containerd.pb-c.c core/container_containerd.pb-c.h: \
    core/container_containerd.pb-c.stamp
core/container_containerd.pb-c.stamp: $(srcdir)/core/container_containerd.proto
	$(AM_V_GEN)$(MKDIR_P) core && \
	$(PROTOC_C) --proto_path=$(srcdir)/core --c_out=core \
	    $(srcdir)/core/container_containerd.proto && touch $@

CONTAINER_TEST_CFLAGS = $(CORE_CFLAGS) -I$(top_srcdir)/tests
CONTAINER_TEST_LDADD = core/libgpcore.la -lm

check_PROGRAMS += tests/unit/test_container_loop
TESTS += tests/unit/test_container_loop
tests_unit_test_container_loop_SOURCES = tests/unit/test_container_loop.c
tests_unit_test_container_loop_CFLAGS = $(CONTAINER_TEST_CFLAGS)
tests_unit_test_container_loop_LDADD = $(CONTAINER_TEST_LDADD)

EXTRA_DIST += fuzz/fuzz_container_cri.c fuzz/fuzz_container_ctrd.c \
	fuzz/corpus/fuzz_container_cri/k8s fuzz/corpus/fuzz_container_ctrd/ns \
	fuzz/corpus/fuzz_container_ctrd/stream fuzz/corpus/fuzz_cgroup/v1 \
	fuzz/corpus/fuzz_cgroup/docker

# Against real runtimes (started by container_runtimes.sh, which .ci/run
# also calls); each skips with the reason when its runtime cannot run.
CONTAINER_IT = \
	tests/integration/90-container-docker.sh \
	tests/integration/91-container-podman.sh \
	tests/integration/92-container-containerd.sh \
	tests/integration/93-container-cri.sh
TESTS += $(CONTAINER_IT)
EXTRA_DIST += $(CONTAINER_IT) tests/integration/container_lib.sh \
	tests/integration/cri_client.py \
	tests/integration/container_runtimes.sh
EXTRA_DIST += fuzz/corpus/fuzz_container_cri/3a785bf8575cf1dd4e627cd968fe856bb1115b89 \
	fuzz/corpus/fuzz_container_cri/d7936530b29986cc65a07ff4991bd16e26f291a5

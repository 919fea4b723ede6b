# gProfiler compatibility: the flags of gProfiler 1.57.1 (core/compat.c,
# docs/COMPAT.md) and the test generated from their list.
core_libgpcore_la_SOURCES += core/compat.c core/compat_usage.c \
	core/logship.c
TESTS += tests/compat/95-gprofiler-flags.sh tests/compat/96-studio-logs.sh \
	tests/compat/97-compat-effects.sh
EXTRA_DIST += core/compat.mk docs/COMPAT.md \
	tests/compat/gprofiler-1.57.1-flags.txt \
	tests/compat/95-gprofiler-flags.sh tests/compat/96-studio-logs.sh \
	tests/compat/97-compat-effects.sh

#!/bin/sh
# Slow tier (make check-slow): 600-perfspect-fake.sh with the fake at
# PerfSpect's real timing (7 s of set-up, 5 s rows): the fake the plugin
# tests rely on behaves as docs/specs/perfspect.md says at the speed users
# see.
FAKE_PERFSPECT_SCALE=1
export FAKE_PERFSPECT_SCALE
. "$top_srcdir/tests/integration/600-perfspect-fake.sh"

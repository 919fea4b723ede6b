#!/bin/sh
# Slow tier (make check-slow): 630-perfspect-heartbeat.sh with the fake
# PerfSpect at its realistic timing (7 s of set-up, 5 s rows) and 20 s
# cycles, as a Studio user enabling hardware metrics would see it.
FAKE_PERFSPECT_SCALE=1 PS_DURATION=20 PS_WAIT=90
export FAKE_PERFSPECT_SCALE PS_DURATION PS_WAIT
. "$top_srcdir/tests/integration/630-perfspect-heartbeat.sh"

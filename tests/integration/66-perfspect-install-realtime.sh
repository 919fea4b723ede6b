#!/bin/sh
# Slow tier (make check-slow): 62-perfspect-install.sh with the installed
# (fake) PerfSpect at its realistic timing: 7 s of set-up before its first
# 5 s row, so the good install runs 35 s to see metrics in later cycles.
FAKE_PERFSPECT_SCALE=1 PS_GOOD_SECS=35
export FAKE_PERFSPECT_SCALE PS_GOOD_SECS
. "$top_srcdir/tests/integration/62-perfspect-install.sh"

#!/bin/sh
# Slow tier (make check-slow): 620-perfspect-install.sh with the installed
# (fake) PerfSpect at its realistic timing: 7 s of set-up before its first
# row leaves none in 5 s cycles, so the good install runs 20 s cycles for
# 65 s to see metrics in the later ones.
FAKE_PERFSPECT_SCALE=1 PS_GOOD_SECS=65 PS_GOOD_CYCLE=20
export FAKE_PERFSPECT_SCALE PS_GOOD_SECS PS_GOOD_CYCLE
. "$top_srcdir/tests/integration/620-perfspect-install.sh"

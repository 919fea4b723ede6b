#!/bin/sh
# Slow tier (make check-slow): iaprof's start-up, snapshot and stop at the
# agent's real default timeouts (10 s for the first interval line, 5 s for
# a snapshot, 5 s after SIGINT), beside 420-iaprof-failures.sh, which
# compresses them with GP_IAPROF_*_TIMEOUT_MS.
. "$top_srcdir/tests/tap.sh"
tap_tmpdir
. "$top_srcdir/tests/integration/iaprof_lib.sh"
unset GP_IAPROF_START_TIMEOUT_MS GP_IAPROF_SNAPSHOT_TIMEOUT_MS \
    GP_IAPROF_STOP_TIMEOUT_MS
L="$TMP/log"

fresh() { rm -rf "$TMP/out" "$TMP/fake.log" "$TMP/fake.state"; }

# A normal start at real timing: the first cycle is written.
fresh
t0=$(date +%s)
gp -d 5 >"$L" 2>&1
rc=$? el=$(($(date +%s) - t0))
test $rc -eq 0 && check_model "$TMP/out/last_profile.col" 1 >/dev/null
ok $? "normal start, one 5 s cycle at real timing: folded (${el} s)"

# No interval line ever: start fails after the 10 s default, not before.
fresh
t0=$(date +%s)
FAKE_IAPROF_MODE=nointerval gp -d 1 >"$L" 2>&1
rc=$? el=$(($(date +%s) - t0))
test $rc -ne 0 && grep -q "iaprof failed to start: " "$L" &&
    test "$el" -ge 10 && test "$el" -le 25
ok $? "#7 no interval: start gives up after the 10 s default (${el} s)"

# A stall: the snapshot times out after the 5 s default, a fresh child next.
fresh
FAKE_IAPROF_MODE=stall FAKE_IAPROF_MODE_RUNS=1 FAKE_IAPROF_BLOCKS=2 \
    gp_bg -c -d 5 >"$L" 2>&1
t0=$(date +%s)
wait_for 40 grep -q "iaprof snapshot timed out" "$L"
rc=$? el=$(($(date +%s) - t0))
test $rc -eq 0 && test "$el" -ge 9
ok $? "#12 stalled: snapshot timed out after the 5 s cycle plus the 5 s default (${el} s)"
wait_for 30 grep -q "^start [0-9]* 2 " "$TMP/fake.log"
ok $? "#12 a fresh iaprof is started"
kill -INT "$gpid"; wait "$gpid"
ok $? "#12 the daemon stops"

# SIGINT ignored: SIGKILL after the 5 s default stop timeout.
fresh
FAKE_IAPROF_MODE=ignoreint gp_bg -c -d 2 >"$L" 2>&1
wait_for 30 grep -q "output: wrote" "$L"
fpid=$(sed -n 's/^start \([0-9]*\) .*/\1/p' "$TMP/fake.log")
t0=$(date +%s)
kill -INT "$gpid"; wait "$gpid"
rc=$? el=$(($(date +%s) - t0))
test $rc -eq 0 && test "$el" -ge 4 && test "$el" -le 15 &&
    ! kill -0 "$fpid" 2>/dev/null
ok $? "#5 SIGINT ignored: killed after the 5 s default stop timeout (${el} s)"
done_testing

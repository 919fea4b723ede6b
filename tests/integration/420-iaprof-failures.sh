#!/bin/sh
# iaprof failures through the real daemon (docs/specs/iaprof.md section 7):
# version gate, no GPU, no interval, stalls and deaths with restarts,
# malformed lines, an iaprof that ignores SIGINT.
. "$top_srcdir/tests/tap.sh"
tap_tmpdir
. "$top_srcdir/tests/integration/iaprof_lib.sh"
L="$TMP/log"
# iaprof's stderr tail, quoted in a message, continues it: its later lines
# are indented (core/base/log.c)
TAB=$(printf '\t')

fresh() { rm -rf "$TMP/out" "$TMP/fake.log" "$TMP/fake.state"; }

fresh
FAKE_IAPROF_VERSION=2026.2 gp -d 1 >"$L" 2>&1
test $? -ne 0 && grep -q "iaprof 2026.2 is unsupported; minimum version is 2026.3" "$L"
ok $? "#8 too old: the cycle fails with the found and minimum versions"
grep -q "^version" "$TMP/fake.log" && ! grep -q "^start" "$TMP/fake.log"
ok $? "#8 the profiling child is never launched"
fresh
FAKE_IAPROF_VERSION=invalid gp -d 1 >"$L" 2>&1
test $? -ne 0 && grep -q "Invalid version: 'invalid'" "$L"
ok $? "#9 garbage version is an invalid-version error"
fresh
FAKE_IAPROF_VERSION=2026.1 FAKE_IAPROF_VERSION_STDOUT=2026.4 gp -d 1 >"$L" 2>&1
ok $? "#10 version on stdout wins over stderr"

fresh
FAKE_IAPROF_MODE=nogpu gp -d 1 >"$L" 2>&1
test $? -ne 0 && grep -q "iaprof failed to start: " "$L" &&
    grep -q "ERROR: Failed to open any drivers\." "$L"
ok $? "#4 no GPU: iaprof failed to start with its stderr"

fresh
GP_IAPROF_START_TIMEOUT_MS=1500 FAKE_IAPROF_MODE=nointerval gp -d 1 >"$L" 2>&1
test $? -ne 0 && grep -q "iaprof failed to start: " "$L" &&
    grep -q "^${TAB}INFO: waiting for a kernel\$" "$L"
ok $? "#7 no interval: start times out with the stderr tail"
grep -q " INT\$" "$TMP/fake.log"
ok $? "#7 the child is stopped with SIGINT"
fresh
GP_IAPROF_START_TIMEOUT_MS=1500 FAKE_IAPROF_MODE=oldgrammar gp -d 1 >"$L" 2>&1
test $? -ne 0 && grep -q "iaprof failed to start" "$L"
ok $? "#13 the old grammar never ticks: start times out"

fresh
FAKE_IAPROF_MODE=malformed gp -d 2 >"$L" 2>&1
ok $? "#11 malformed lines do not fail the cycle"
col="$TMP/out/last_profile.col"
blocks=$(check_model "$col" 1 | sed -n 's/^# \([0-9]*\) blocks/\1/p')
test -n "$blocks" && test "$(header_get "$col" iaprof_malformed_records)" -eq $((9 * blocks))
ok $? "#11 good lines fold; 9 malformed lines per block counted"
grep -q "Skipped [0-9]* malformed iaprof records (showing up to 8):" "$L"
ok $? "#11 the warning is logged"

fresh
FAKE_IAPROF_MODE=garbage gp -d 1 >"$L" 2>&1
test $? -eq 0 && test "$(header_get "$col" iaprof_malformed_records)" -gt 0
ok $? "binary garbage lines: counted, the cycle still succeeds"
fresh
FAKE_IAPROF_MODE=flood FAKE_IAPROF_FLOOD_LINES=20000 gp_bg -d 3 >"$L" 2>&1
hwm=0
while kill -0 "$gpid" 2>/dev/null; do
	h=$(sed -n 's/^VmHWM:[[:space:]]*\([0-9]*\) kB/\1/p' "/proc/$gpid/status" 2>/dev/null)
	[ -n "$h" ] && hwm=$h
	sleep 0.2
done
wait "$gpid"
ok $? "a flooding iaprof (20000 new stacks a block): the cycle completes"
if asan_build; then
	skip "memory stays bounded by the stack limits" "ASan build"
else
	test "$hwm" -gt 0 && test "$hwm" -lt 200000
	ok $? "memory stays bounded by the stack limits (peak ${hwm} kB)"
fi

# A stall: snapshot timeout, SIGKILL, reap, then a fresh child next cycle.
fresh
GP_IAPROF_SNAPSHOT_TIMEOUT_MS=1000 FAKE_IAPROF_MODE=stall FAKE_IAPROF_MODE_RUNS=1 \
    FAKE_IAPROF_BLOCKS=2 gp_bg -c -d 1 >"$L" 2>&1
wait_for 20 grep -q "iaprof snapshot timed out" "$L"
ok $? "#12 stalled: iaprof snapshot timed out"
wait_for 20 grep -q "^start [0-9]* 2 " "$TMP/fake.log"
ok $? "#12 a fresh iaprof is started"
n0=$(grep -c "output: wrote" "$L")
wait_for 20 test "$(grep -c "output: wrote" "$L")" -gt "$n0"
sleep 1.2
check_model "$col" 2
ok $? "#12 the next cycle succeeds with the new child's texts only"
test "$(zombies "$gpid")" -eq 0
ok $? "#12 no zombie left"
kill -INT "$gpid"; wait "$gpid"
ok $? "#12 the daemon stops"

# Death mid-run: the cycle fails with the stderr tail, a restart follows.
fresh
FAKE_IAPROF_MODE=dies FAKE_IAPROF_MODE_RUNS=1 gp_bg -c -d 1 >"$L" 2>&1
wait_for 20 grep -q "^${TAB}device lost\$" "$L"
grep -q "snapshot failed: iaprof snapshot failed: " "$L"
ok $? "#6 died: iaprof snapshot failed: <stderr tail ending in device lost>"
wait_for 20 grep -q "iaprof not running (unexpectedly), restarting" "$L"
ok $? "#6 the restart is logged"
wait_for 20 grep -q "^start [0-9]* 2 " "$TMP/fake.log"
n0=$(grep -c "output: wrote" "$L")
wait_for 20 test "$(grep -c "output: wrote" "$L")" -gt "$n0"
sleep 1.2
check_model "$col" 2
ok $? "#6 restarted: ids reused with other texts, nothing stale"
kill -INT "$gpid"; wait "$gpid"
ok $? "#6 the daemon stops"

# An iaprof that ignores SIGINT is killed after the stop timeout.
fresh
GP_IAPROF_STOP_TIMEOUT_MS=1000 FAKE_IAPROF_MODE=ignoreint gp_bg -c -d 1 >"$L" 2>&1
wait_for 20 grep -q "output: wrote" "$L"
fpid=$(sed -n 's/^start \([0-9]*\) .*/\1/p' "$TMP/fake.log")
t0=$(date +%s)
kill -INT "$gpid"; wait "$gpid"
ok $? "#5 the daemon stops"
test $(($(date +%s) - t0)) -le 8 && ! kill -0 "$fpid" 2>/dev/null
ok $? "#5 SIGINT ignored: SIGKILL after the stop timeout, agent does not hang"
grep -q "signal $fpid INT" "$TMP/fake.log" && ! grep -q "TERM" "$TMP/fake.log"
ok $? "#14 only SIGINT (and SIGKILL) were sent, never SIGTERM"
done_testing

#!/bin/sh
# Python plugin, which threads are on CPU: three busy Python processes on
# this host's CPUs, one of them also running a thread busy 2 ms then asleep
# 18 ms (tests/workloads/py_duty.py).  That thread waits for a CPU each
# time it wakes, runnable but not running: its share of its process's
# samples must be its share of the process's CPU time (from
# /proc/PID/task/TID/stat over the window), not of the time it was
# runnable (what /proc's state R gives: 1.4-2.5x; 40% against a true 28%
# here).  At 499 Hz for 15 s: ~600 samples of the process on a loaded host,
# an SD of ~1.9 points (bench/fidelity measures the ±3 target).
. "$top_srcdir/tests/tap.sh"
skip_under_asan "thread shares against /proc"
. "$top_srcdir/tests/workloads/py_lib.sh"
[ "$(id -u)" -eq 0 ] || skip_all "needs root"
[ -x "$GP_BIN" ] || skip_all "no daemon"
py=$(py_interps | awk '$1 == "3.11" || $1 == "3.12" { print $2; exit }')
[ -n "$py" ] || py=$(py_interps | awk 'NR == 1 { print $2 }')
[ -n "$py" ] || skip_all "no CPython 3.8-3.13"
tap_tmpdir
wl="$top_srcdir/tests/workloads"
ncpu=$(nproc)

pids=""
i=0
while [ $i -lt $((ncpu)) ]; do
	"$py" "$wl/py_duty.py" busy >"$TMP/ready.$i" 2>&1 &
	pids="$pids $!"
	i=$((i + 1))
done
"$py" "$wl/py_duty.py" duty "$TMP/tid" >"$TMP/ready.duty" 2>&1 &
duty=$!
trap 'kill $pids $duty 2>/dev/null; rm -rf "$TMP"' EXIT
py_wait_ready "$TMP/ready.duty"
ok $? "workload ready"
tid=$(cat "$TMP/tid")

# utime + stime (ticks) of the duty thread and of the whole duty process
ticks() {
	awk '{ sub(/^.*\) /, ""); print $12 + $13 }' "$1" 2>/dev/null
}
t0=$(ticks /proc/$duty/task/$tid/stat); p0=$(ticks /proc/$duty/stat)
py_profile "$TMP/out" 15 -f 499
ok $? "daemon ran one cycle"
t1=$(ticks /proc/$duty/task/$tid/stat); p1=$(ticks /proc/$duty/stat)
col=$(ls "$TMP"/out/profile_*.col 2>/dev/null | head -1)
[ -n "$col" ]
ok $? "a profile was written"
grep -q "sampling the threads the system profiler finds on CPU" \
    "$TMP/out/log"
ok $? "the Python plugin follows the BPF sampler's samples"

tail -n +2 "$col" | "$PYTHON3" -c '
import sys
duty, tid, t0, t1, p0, p1 = sys.argv[1:7]
thread = proc = 0
for line in sys.stdin:
    st, _, n = line.rstrip("\n").rpartition(" ")
    fr = st.split(";")
    if not any(f.startswith("busy_main ") or f.startswith("duty_thread ")
               for f in fr):
        continue
    proc += int(n)
    if any(f.startswith("duty_thread ") for f in fr):
        thread += int(n)
true = 100.0 * (int(t1) - int(t0)) / max(int(p1) - int(p0), 1)
got = 100.0 * thread / max(proc, 1)
print("# duty thread: %.1f%% of its process samples (%d of %d), "
      "CPU time share %.1f%%" % (got, thread, proc, true))
print("%s duty thread share %.1f%% within 4 points of its CPU share %.1f%%"
      % ("ok" if abs(got - true) <= 4 and proc >= 300 else "not ok",
         got, true))
' "$duty" "$tid" "$t0" "$t1" "$p0" "$p1" >"$TMP/res"
cat "$TMP/res" | grep '^#'
grep -q '^ok ' "$TMP/res"
ok $? "$(grep -v '^#' "$TMP/res" | sed 's/^\(not \)*ok //')"
done_testing

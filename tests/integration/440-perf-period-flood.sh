#!/bin/sh
# A sampling period cannot make the kernel deliver more than -f 1000's
# worth: 1000 samples a second per CPU.  --perf-event-period 1 on a clock
# (the default event, cpu-clock, task-clock: nanoseconds) asked for a
# billion: the agent took a whole core, lost ~300k samples per 4 s, slowed
# every exec on the host and did not honour SIGTERM.  Clocks are refused at
# start (exit 2, naming the option and the limit); a counting event whose
# rate depends on the load (page faults made by an unprivileged user, a
# tracepoint hit at every context switch) is capped per CPU in the kernel,
# its period raised, said in the log; the agent's CPU, memory, cycles and
# SIGTERM stay within the bounds of tests/attack_lib.sh.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/workloads/perf_lib.sh"
. "$top_srcdir/tests/attack_lib.sh"
perf_require
[ -x "$GP_BIN" ] || skip_all "daemon not built"
[ -x "$WL/perf_faults" ] || skip_all "perf_faults workload not built"
command -v setpriv >/dev/null || skip_all "setpriv(1) missing"
command -v perf >/dev/null || skip_all "perf(1) missing (perf bench makes the context switches)"
tap_tmpdir
chmod 0755 "$TMP"
NOBODY="--reuid=65534 --regid=65534 --clear-groups"
ncpu=$(nproc)

# refused NAME ARGS...: the agent exits 2 at once, naming the option and
# the limit.
refused() {
	name=$1
	shift
	t0=$(date +%s)
	GPROFILER_LOCK_NAME="gptest-44-$$-$name" timeout -k 5 20 "$GP_BIN" \
	    --plugin-dir "$GP_PLUGIN_DIR" -o "$TMP/$name" -d 3 \
	    --no-flamegraph "$@" >"$TMP/$name.log" 2>&1
	rc=$?
	t=$(($(date +%s) - t0))
	[ "$rc" -eq 2 ] && [ "$t" -le 5 ] &&
	    grep -q -- "--perf-event-period [0-9]*: .*more than 1000 samples a second per CPU" \
	    "$TMP/$name.log"
	ok $? "$*: exit $rc in $t s, naming the option and the limit"
	[ "$rc" -eq 2 ] || sed 's/^/# /' "$TMP/$name.log" | head -5
}
refused p1 --perf-event-period 1
refused cc --perf-event cpu-clock --perf-event-period 999999
refused tc --perf-event task-clock --perf-event-period 1000

# Samples a second per CPU over a run: every profile's perf_samples over
# the time from the agent's start to the last profile.
rate() {
	"$PYTHON3" - "$1" "$ATTACK_T0" "$ncpu" <<'PY'
import glob, json, os, sys
n, last = 0, None
for f in glob.glob(sys.argv[1] + "/profile_*.col"):
    with open(f) as fh:
        n += json.loads(fh.readline()[2:])["metadata"].get("perf_samples", 0)
    last = max(last or 0, os.stat(f).st_mtime)
if last is None:
    print(-1)
else:
    print(int(n / (last - float(sys.argv[2])) / int(sys.argv[3])))
PY
}
# Only the perf plugin: the runtime profilers have nothing to do with the
# rate, and other processes on the host are not this test's to examine.
ONLY_PERF="--no-python --no-java --no-ruby --no-php --no-nodejs"

# A counting event at period 1, the load made by nobody: page faults.
# shellcheck disable=SC2086
setpriv $NOBODY "$WL/perf_faults" -t 90 &
wl=$!
# shellcheck disable=SC2086
setpriv $NOBODY "$WL/perf_faults" -t 90 &
wl2=$!
trap 'kill $wl $wl2 2>/dev/null; rm -rf "$TMP"' EXIT
perf_wait_exec $wl perf_faults

# What -f 1000 costs the agent on this host: the bound of the flood's.
# shellcheck disable=SC2086
attack_start "$TMP/f1000" 3 $ONLY_PERF -f 1000
sleep 11
base=$(attack_cpu_s "$AGENT_PID")
base_rss=$(attack_hwm_kb "$AGENT_PID")
kill -TERM "$AGENT_PID"
wait "$AGENT_PID" 2>/dev/null
diag "-f 1000: $(rate "$TMP/f1000") samples/s/CPU, agent CPU $base s, peak RSS $base_rss KiB"
cpu_max=$(awk -v b="${base:-2}" 'BEGIN { m = b * 1.5 + 0.5; printf "%.1f", m < 2 ? 2 : m }')
rss_max=$(( (${base_rss:-0} * 3 / 2) / 1024 + 8 ))
[ "$rss_max" -lt 64 ] && rss_max=64

out=$TMP/pf
# shellcheck disable=SC2086
attack_start "$out" 3 $ONLY_PERF --perf-event page-faults --perf-event-period 1
sleep 11
r=$(rate "$out")
diag "page-faults, period 1: $r samples/s/CPU"
[ "$r" -ge 0 ] && [ "$r" -le 1100 ]
ok $? "page-faults at period 1: $r samples a second per CPU, <= 1000 (+10%)"
n=$(grep -c "WARN perf: page-faults: over 1000 samples a second on a CPU at --perf-event-period 1 .*period raised to" "$out/log")
[ "$n" -eq 1 ]
ok $? "the log says once that the period was raised ($n)"
grep -q "fault_pages" "$out"/profile_*.col
ok $? "the faults are still profiled (fault_pages)"
# No worse than -f 1000 (at least the usual 2 s, 64 MiB).
attack_checks "$out" 3 "$cpu_max" "$rss_max"
grep 'perf: page-faults' "$out/log" | head -5 | sed 's/^/# /'

# A tracepoint: sampled at every hit unless a period is given (sched_switch
# at every context switch); its program cannot be slowed, only capped.
if command -v unshare >/dev/null && unshare -m sh -c \
    'mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null ||
    test -e /sys/kernel/tracing/events' 2>/dev/null; then
	# Context switches by the ten thousand: two processes passing a
	# token through pipes (a pipe read a byte at a time switched only
	# when the writer's 64 KiB were read: 284 a second on a loaded host,
	# under the cap this checks).
	# shellcheck disable=SC2086
	setpriv $NOBODY timeout 40 perf bench sched pipe -l 1000000000 \
	    >/dev/null 2>&1 &
	cs=$!
	out=$TMP/tp
	mkdir -p "$out"
	ATTACK_T0=$(date +%s.%N)
	# shellcheck disable=SC2086
	GPROFILER_LOCK_NAME="gptest-44-$$-tp" unshare -m sh -c '
	    test -e /sys/kernel/tracing/events ||
	    mount -t tracefs nodev /sys/kernel/tracing; exec "$@"' sh \
	    "$GP_BIN" --plugin-dir "$GP_PLUGIN_DIR" -o "$out" -d 3 -c \
	    --no-flamegraph $ONLY_PERF --perf-event sched:sched_switch \
	    >"$out/log" 2>&1 &
	AGENT_PID=$!
	sleep 11
	r=$(rate "$out")
	diag "sched:sched_switch at every hit: $r samples/s/CPU"
	[ "$r" -ge 0 ] && [ "$r" -le 1100 ]
	ok $? "sched:sched_switch: $r samples a second per CPU, <= 1000 (+10%)"
	n=$(grep -c "perf-event sched:sched_switch: more than 1000 hits a second on a CPU" "$out/log")
	[ "$n" -eq 1 ]
	ok $? "the log says once that hits over the cap are not sampled ($n)"
	attack_checks "$out" 3 "$cpu_max" "$rss_max"
	kill $cs 2>/dev/null
else
	skip "tracepoint capped" "no mount namespace or tracefs"
fi
done_testing

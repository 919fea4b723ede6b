#!/bin/sh
# java plugin: a sampled process that is not a JVM has its maps read once,
# not again in every cycle (jv_watch.c, jv_examine: remembered by its start
# time and executable); and a wrapper that execs java after it was found not
# to be one -- same PID, same start time -- is a new process, found to be a
# JVM and asked for its perf map.  Four 4 s cycles over a busy native
# program and a busy shell that execs java after 6 s.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/integration/java_lib.sh"
jv_require
command -v jattach >/dev/null || skip_all "jattach missing"
tap_tmpdir
jv_compile

busy=$top_builddir/tests/workloads/perf_busy
[ -x "$busy" ] || skip_all "perf_busy not built"
"$busy" -t 60 >/dev/null 2>&1 & bpid=$!
# A shell busy for 6 s (sampled: not a JVM), then the same process is java.
sh -c 'end=$(($(date +%s) + 6)); while [ "$(date +%s)" -lt $end ]; do :; done
exec java -XX:+PreserveFramePointer -cp "$1" HotLoop 30' sh "$TMP/classes" \
    >"$TMP/java.out" 2>&1 & wpid=$!
trap 'kill $bpid $wpid 2>/dev/null; rm -rf "$TMP" "/tmp/perf-$wpid.map"' EXIT
start=$(cut -d' ' -f22 "/proc/$wpid/stat")

mkdir -p "$TMP/out"
GPROFILER_LOCK_NAME=gptest-java-$$ timeout -s TERM 19 "$GP_BIN" \
    --plugin-dir "$GP_PLUGIN_DIR" -o "$TMP/out" -d 4 -c -v --no-flamegraph \
    --pids "$bpid,$wpid" >"$TMP/daemon.log" 2>&1
grep 'java:' "$TMP/daemon.log" | grep -v 'perf map of' | tail -8 | sed 's/^/# /'

# "N other processes known, M reads of their maps spared" at each snapshot
spared=$(sed -n 's/.*java: snapshot:.* \([0-9]*\) reads of their maps spared.*/\1/p' \
    "$TMP/daemon.log" | tail -1)
[ "${spared:-0}" -ge 2 ]
ok $? "the busy non-JVM's maps were not read again in later cycles (${spared:-no} reads spared)"
grep -q "pid $bpid ([^)]*): JVM found" "$TMP/daemon.log"
[ $? -ne 0 ]; ok $? "the native program is not taken for a JVM"

[ "$(cut -d' ' -f22 "/proc/$wpid/stat" 2>/dev/null)" = "$start" ] &&
    grep -q libjvm "/proc/$wpid/maps"
ok $? "the wrapper exec'd java in place (same PID and start time)"
grep -q "pid $wpid ([^)]*): JVM found" "$TMP/daemon.log"
ok $? "the exec'd process was examined again and found to be a JVM"
grep -q 'HotLoop' "/tmp/perf-$wpid.map" 2>/dev/null
ok $? "and asked for its perf map"
done_testing

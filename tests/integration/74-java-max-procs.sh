#!/bin/sh
# --max-processes-runtime-profiler N (gprofiler-compat §10) for the java
# plugin: with a busy and an idle JVM and N = 1 only the busy one is asked
# for its perf map; without a limit (control) both are.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/integration/java_lib.sh"
jv_require
command -v jattach >/dev/null || skip_all "jattach missing"
tap_tmpdir
jv_compile
cat >"$TMP/Idle.java" <<'JAVA'
public class Idle {
	public static void main(String[] args) throws Exception {
		Thread.sleep(60000);
	}
}
JAVA
javac -d "$TMP/classes" "$TMP/Idle.java" >"$TMP/javac2.log" 2>&1 ||
    { cat "$TMP/javac2.log"; exit 99; }

java -XX:+PreserveFramePointer -cp "$TMP/classes" HotLoop 60 \
    >"$TMP/busy.out" 2>&1 & busy=$!
java -cp "$TMP/classes" Idle >"$TMP/idle.out" 2>&1 & idle=$!
trap 'kill $busy $idle 2>/dev/null; rm -rf "$TMP" /tmp/perf-$busy.map /tmp/perf-$idle.map' EXIT
jv_wait_jit $busy
jv_wait_jit $idle
rm -f /tmp/perf-$busy.map /tmp/perf-$idle.map

jv_profile "$TMP/top1" 9 "$busy,$idle" --max-processes-runtime-profiler 1 -v
ok $? "one cycle with --max-processes-runtime-profiler 1"
[ -s /tmp/perf-$busy.map ]
ok $? "the busy JVM wrote its perf map"
# Judged by this agent's log: on a shared host (CI runs tests side by
# side) another agent's java plugin may ask the idle JVM too.
grep -q "perf maps of the 1 busiest of 2 JVMs" "$TMP/top1/daemon.log" &&
    ! grep -q "pid $idle: .*perf map" "$TMP/top1/daemon.log"
ok $? "the idle JVM was not asked"
[ -e /tmp/perf-$idle.map ] &&
    diag "/tmp/perf-$idle.map exists: written by another agent meanwhile"

rm -f /tmp/perf-$busy.map /tmp/perf-$idle.map
jv_profile "$TMP/all" 9 "$busy,$idle"
ok $? "control: one cycle without a limit"
[ -s /tmp/perf-$busy.map ] && [ -e /tmp/perf-$idle.map ]
ok $? "control: both JVMs wrote their perf maps"
done_testing

#!/bin/sh
# --max-processes-runtime-profiler N (docs/specs/gprofiler-compat.md §10) for
# the java plugin: with a busy and a light JVM (20% of a CPU) and N = 1 only the
# busy one is asked for its perf map; without a limit (control) both are. A JVM
# that is never on CPU (stopped with SIGSTOP during the cycles: a sleeping one's
# VM threads still wake now and then) is never sampled, so it is never asked at
# all (ABI 1.4: perf maps only for JVMs the system profiler sampled in the
# cycle).
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
cat >"$TMP/Light.java" <<'JAVA'
public class Light {
	static long spin(long ms) {
		long end = System.nanoTime() + ms * 1000000L, n = 0;
		while (System.nanoTime() < end)
			n++;
		return n;
	}
	public static void main(String[] args) throws Exception {
		long t = 0, stop = System.currentTimeMillis() + 60000;
		while (System.currentTimeMillis() < stop) {
			t += spin(20);
			Thread.sleep(80);
		}
		System.out.println(t);
	}
}
JAVA
javac -d "$TMP/classes" "$TMP/Idle.java" "$TMP/Light.java" \
    >"$TMP/javac2.log" 2>&1 || { cat "$TMP/javac2.log"; exit 99; }

java -XX:+PreserveFramePointer -cp "$TMP/classes" HotLoop 60 \
    >"$TMP/busy.out" 2>&1 & busy=$!
java -cp "$TMP/classes" Light >"$TMP/light.out" 2>&1 & light=$!
java -cp "$TMP/classes" Idle >"$TMP/idle.out" 2>&1 & idle=$!
trap 'kill -CONT $idle 2>/dev/null; kill $busy $light $idle 2>/dev/null; rm -rf "$TMP" /tmp/perf-$busy.map /tmp/perf-$light.map /tmp/perf-$idle.map' EXIT
jv_wait_jit $busy
jv_wait_jit $light
jv_wait_jit $idle
sleep 1	# the idle JVM's start-up is over
rm -f /tmp/perf-$busy.map /tmp/perf-$light.map /tmp/perf-$idle.map
kill -STOP $idle

jv_profile "$TMP/top1" 9 "$busy,$light,$idle" \
    --max-processes-runtime-profiler 1 -v
ok $? "one cycle with --max-processes-runtime-profiler 1"
[ -s /tmp/perf-$busy.map ]
ok $? "the busy JVM wrote its perf map"
# Judged by this agent's log: on a shared host (CI runs tests side by
# side) another agent's java plugin may ask the light JVM too.
grep -q "perf maps of the 1 busiest of 2 JVMs" "$TMP/top1/daemon.log" &&
    ! grep -q "pid $light: asking for its perf map" "$TMP/top1/daemon.log"
ok $? "the light JVM was not asked"
! grep -q "pid $idle: asking for its perf map" "$TMP/top1/daemon.log"
ok $? "the idle JVM, never sampled, was not asked"
[ -e /tmp/perf-$light.map ] &&
    diag "/tmp/perf-$light.map exists: written by another agent meanwhile"

rm -f /tmp/perf-$busy.map /tmp/perf-$light.map /tmp/perf-$idle.map
jv_profile "$TMP/all" 9 "$busy,$light,$idle" -v
ok $? "control: one cycle without a limit"
[ -s /tmp/perf-$busy.map ] && [ -e /tmp/perf-$light.map ]
ok $? "control: both running JVMs wrote their perf maps"
! grep -q "pid $idle: asking for its perf map" "$TMP/all/daemon.log"
ok $? "control: the idle JVM, never sampled, was not asked"
done_testing

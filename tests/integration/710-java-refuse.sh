#!/bin/sh
# java plugin: JVMs it must not or cannot attach to.  A JVM started with
# -XX:+DisableAttachMechanism is skipped with a reason, without a SIGQUIT
# (no thread dump on its stdout), and stays alive; a good JVM profiled in
# the same cycle still gets its method names.  A jattach that hangs is
# killed and reported, and the snapshot (the profile) still completes in
# time; SIGTERM while one hangs ends the agent, and the jattach, in 2 s,
# even a jattach that ignores SIGTERM.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/integration/java_lib.sh"
jv_require
command -v jattach >/dev/null || skip_all "jattach missing"
tap_tmpdir
jv_compile

java -XX:+DisableAttachMechanism -cp "$TMP/classes" HotLoop 40 \
    >"$TMP/refuse.out" 2>&1 & rpid=$!
java -XX:+PreserveFramePointer -cp "$TMP/classes" HotLoop 40 \
    >"$TMP/good.out" 2>&1 & gpid=$!
trap 'kill $rpid $gpid 2>/dev/null; rm -rf "$TMP" /tmp/perf-$rpid.map /tmp/perf-$gpid.map' EXIT
jv_wait_jit $gpid

jv_profile "$TMP/a" 8 $rpid,$gpid
ok $? "daemon completed a cycle beside a JVM that refuses attach"
kill -0 $rpid
ok $? "the refusing JVM is alive"
! grep -q 'Full thread dump' "$TMP/refuse.out"
ok $? "no SIGQUIT was sent to it (no thread dump)"
grep -q 'DisableAttachMechanism' "$TMP/a/daemon.log"
ok $? "the skip is logged with its reason"

# A jattach that never answers: killed, reported, the cycle ends on time.
# (Python, so that the process keeps the script's name for pgrep: a shell
# that execs sleep would be "sleep 60", and no check could see it.)
cat >"$TMP/jattach-hang" <<SH
#!$(readlink -f /usr/bin/python3)
import time
time.sleep(60)
SH
chmod 755 "$TMP/jattach-hang"
t0=$(date +%s)
GP_JATTACH=$TMP/jattach-hang jv_profile "$TMP/b" 6 $gpid
rc=$?
t1=$(date +%s)
ok $rc "daemon completed a cycle with a hanging jattach"
[ $((t1 - t0)) -le 14 ]
ok $? "the run was not held up by the hanging jattach ($((t1 - t0)) s for -d 6)"
! pgrep -f "$TMP/jattach-hang" >/dev/null
ok $? "the hanging jattach was killed"
grep -q "each run bounded at 30 s" "$TMP/b/daemon.log" &&
    ! grep -q "did not answer within" "$TMP/b/daemon.log"
ok $? "--java-jattach-timeout defaults to 30 s (gProfiler's): not killed within the 6 s run"

# --java-jattach-timeout 1: the run is killed 1 s after it starts.
GP_JATTACH=$TMP/jattach-hang jv_profile "$TMP/c" 4 $gpid \
    --java-jattach-timeout 1
ok $? "daemon completed a cycle with --java-jattach-timeout 1"
grep -q "each run bounded at 1 s" "$TMP/c/daemon.log" &&
    grep -q "jattach did not answer within 1000 ms" "$TMP/c/daemon.log"
ok $? "... the hanging jattach was killed after 1 s, and said so"
! grep -q "no effect here.*java-jattach-timeout" "$TMP/c/daemon.log"
ok $? "... and the flag is not named as inert"

cat >"$TMP/check.py" <<'PY'
import sys
def stacks(path):
    lines = open(path, encoding='utf-8').read().splitlines()[1:]
    return [(l.rsplit(' ', 1)[0].split(';'), int(l.rsplit(' ', 1)[1])) for l in lines]
def ok(c, what):
    print(("PASS " if c else "FAIL ") + what)
rpid, gpid = sys.argv[3], sys.argv[4]
a = stacks(sys.argv[1] + '/last_profile.col')
java = [(f, c) for f, c in a if len(f) > 3 and f[2] == 'java']
skip = '[Profiling skipped: JVM attach disabled (-XX:+DisableAttachMechanism)]'
sk = sum(c for f, c in java if f[3] == skip)
named = sum(c for f, c in java if f[3] != skip and
            any('HotLoop.' in x and x.endswith('_[j]') for x in f))
print("# %d JVM samples, %d with the skip frame, %d named" %
      (sum(c for f, c in java), sk, named))
ok(sk > 0, "the refusing JVM's stacks carry the skip frame")
ok(named > 0, "the good JVM's methods are named in the same cycle")
ok(not any(f[3] == skip and any('HotLoop.' in x for x in f) for f, c in java),
   "nothing named the refusing JVM's JIT frames")
b = stacks(sys.argv[2] + '/last_profile.col')
err = [f for f, c in b if len(f) > 3 and f[2] == 'java' and
       f[3].startswith('[Profiling error: jattach')]
print("# hang: %s" % (err[0][3] if err else None))
ok(len(err) > 0, "the hung jattach is reported as a profiling error")
PY
jv_check_py "$TMP/check.py" "$TMP/a" "$TMP/b" $rpid $gpid

# SIGTERM while a jattach hangs (30 s bound): the agent still ends within
# 2 s, and the jattach it started ends with it (the plugin's destroy kills
# what the stop bound left running).  A jattach that ignores SIGTERM too:
# only that kill ends it, and the agent still ends in time.
cat >"$TMP/jattach-deaf" <<SH
#!$(readlink -f /usr/bin/python3)
import signal, time
signal.signal(signal.SIGTERM, signal.SIG_IGN)
time.sleep(60)
SH
chmod 755 "$TMP/jattach-deaf"

# term_mid_jattach JATTACH DIR WHAT
term_mid_jattach() {
	mkdir -p "$2"
	GP_JATTACH=$1 GPROFILER_LOCK_NAME=gptest-java-$$ "$GP_BIN" \
	    --plugin-dir "$GP_PLUGIN_DIR" -o "$2" -d 3 -c --no-flamegraph \
	    --pids $gpid >"$2/daemon.log" 2>&1 &
	apid=$!
	i=0
	while [ $i -lt 150 ] && ! pgrep -f "$1" >/dev/null; do
		sleep 0.1; i=$((i + 1))
	done
	pgrep -f "$1" >/dev/null
	ok $? "a jattach that $3 hangs under the running agent"
	t0=$(date +%s.%N)
	kill -TERM $apid
	i=0
	while kill -0 $apid 2>/dev/null && [ $i -lt 50 ]; do
		sleep 0.1; i=$((i + 1))
	done
	gone=$(awk -v t0="$t0" -v t="$(date +%s.%N)" \
	    'BEGIN { printf "%.1f", t - t0 }')
	kill -0 $apid 2>/dev/null && { kill -KILL $apid; gone=never; }
	wait $apid
	rc=$?
	awk -v g="$gone" 'BEGIN { exit !(g != "never" && g <= 2) }' &&
	    [ $rc -eq 0 ]
	ok $? "SIGTERM mid-jattach ($3) ended the agent within 2 s (${gone} s, exit $rc)" ||
	    { sanitizer_report "$2/daemon.log" ||
	    tail -15 "$2/daemon.log" | sed 's/^/# /'; }
	sleep 0.2
	! pgrep -f "$1" >/dev/null
	ok $? "no jattach ($3) outlives the agent"
}
term_mid_jattach "$TMP/jattach-hang" "$TMP/d" "honours SIGTERM"
term_mid_jattach "$TMP/jattach-deaf" "$TMP/e" "ignores SIGTERM"
grep -i "jattach\|stop" "$TMP/e/daemon.log" | tail -6 | cut -c1-200 |
    sed 's/^/# /'
done_testing

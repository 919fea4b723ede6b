#!/bin/sh
# --nodejs-mode attach-maps, stopped mid-attach: a local user (nobody) runs
# a "node" that answers the inspector like node but never replies to the
# evaluation, so the agent's helper waits on it (up to its 8 s deadline)
# with a copy of the perf map writer in the target's /tmp.  SIGTERM to the
# agent then must still end it within 2 s, and what the attach had put in
# the world must be gone with it: the helper process (stopped with the
# run; killed by the plugin's destroy if it outlived the stop bound) and
# the copy of the writer (the helper's to remove, else the plugin's,
# through the /tmp descriptor it holds).
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/attack_lib.sh"
. "$top_srcdir/tests/integration/node_lib.sh"
node_attach_require unshare ip setpriv pgrep
tap_tmpdir
node_py_fake
ATK=$top_srcdir/tests/integration/node_attack.py

# The fake, as nobody, in a network namespace of its own (loopback up).
(cd "$TMP" && exec unshare -n sh -c 'ip link set lo up && exec "$@"' sh \
    setpriv --reuid=65534 --regid=65534 --clear-groups \
    env PYTHONHOME=/usr "$TMP/py/node" "$ATK" fake) >/dev/null 2>&1 &
fake=$!
trap 'pkill -KILL -f "nodejs-attach $fake " 2>/dev/null
    kill -KILL $fake 2>/dev/null
    [ -n "${AGENT_PID:-}" ] && kill -KILL $AGENT_PID 2>/dev/null
    rm -f /tmp/.gprofiler-nodejs-perfmap-$fake-*
    rm -rf "$TMP"' EXIT
node_wait_usr1 $fake

attack_start "$TMP/out" 3 --pids "$fake" --nodejs-mode attach-maps
log=$TMP/out/log
# Until the helper has put its copy of the writer in the fake's /tmp.
copy= i=0
while [ $i -lt 150 ] && [ -z "$copy" ]; do
	copy=$(ls /tmp/.gprofiler-nodejs-perfmap-$fake-* 2>/dev/null)
	[ -n "$copy" ] || { sleep 0.1; i=$((i + 1)); }
done
helper=$(pgrep -f "nodejs-attach $fake ")
[ -n "$copy" ] && [ -n "$helper" ]
ok $? "the helper ($helper) is mid-attach, its copy in the target's /tmp" ||
    sed 's/^/# /' "$log" | tail -20

t0=$(date +%s.%N)
kill -TERM "$AGENT_PID"
i=0
while kill -0 "$AGENT_PID" 2>/dev/null && [ $i -lt 50 ]; do
	sleep 0.1; i=$((i + 1))
done
gone=$(awk -v t0="$t0" -v t="$(date +%s.%N)" 'BEGIN { printf "%.1f", t - t0 }')
if kill -0 "$AGENT_PID" 2>/dev/null; then
	ok 1 "SIGTERM mid-attach ended the agent within 2 s (still running after 5 s)"
	kill -KILL "$AGENT_PID"
else
	awk -v g="$gone" 'BEGIN { exit !(g <= 2) }'
	ok $? "SIGTERM mid-attach ended the agent within 2 s (${gone} s)"
fi
wait "$AGENT_PID"
rc=$?
[ $rc -eq 0 ]
ok $? "it exited 0 ($rc)"
# The helper is the agent's child: once the agent is gone, so is it.
sleep 0.2
left=$(pgrep -f "nodejs-attach $fake ")
[ -z "$left" ]
ok $? "no helper outlives the agent${left:+ (left: $left)}"
n=$(ls /tmp/.gprofiler-nodejs-perfmap-$fake-* \
    /proc/$fake/root/tmp/.gprofiler-nodejs-perfmap-* 2>/dev/null | wc -l)
[ "$n" -eq 0 ]
ok $? "no copy of the writer left in the target's /tmp ($n)"
grep -q "INFO nodejs: pid $fake .*attach-maps stopped with the run" "$log" &&
    ! grep -q "WARN nodejs: pid $fake " "$log"
ok $? "the log says the attach stopped with the run, with no warning"
if sanitizer_report "$log"; then
	ok 1 "no sanitizer report"
fi
grep -i "pid $fake\|stop" "$log" | head -8 | cut -c1-200 | sed 's/^/# /'
done_testing

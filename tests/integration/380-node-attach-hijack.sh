#!/bin/sh
# --nodejs-mode attach-maps against a local user (nobody) who wants root's
# node process to run their JavaScript (docs/RUNTIMES.md, "Risks").
#
# F5: nobody polls 127.0.0.1:9229 in the network namespace of a node run
# by root.  With the defaults the agent leaves that node alone (one WARN
# naming --nodejs-attach-shared-netns): its inspector never opens, the
# payload that would write a root-owned file never runs.
# F6: with that flag given, nobody races for port 9229 the moment a
# helper runs or a copy of the writer appears in /tmp, and answers as
# node's inspector would.  The helper talks only to a listener, and to an
# accepted end, that are the target's own sockets: nothing reaches the
# attacker's port; a node whose port was taken is refused with the
# socket's uid, the others are attached to node itself.
# Each scenario runs in network namespaces of its own.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/attack_lib.sh"
. "$top_srcdir/tests/integration/node_lib.sh"
node_attach_require unshare ip setpriv pgrep
PY=/usr/bin/python3
[ -x "$PY" ] || skip_all "Debian's python3 missing"
tap_tmpdir
chmod 755 "$TMP"
NB=$TMP/nb
mkdir "$NB" && chown 65534:65534 "$NB"
WL=$top_srcdir/tests/workloads/node_attach.js
ATK=$top_srcdir/tests/integration/node_attack.py

# node_with_attacker PIDFILE MODE ARGS...: root's node in a new network
# namespace, with nobody's attacker (node_attack.py MODE ARGS NODE_PID)
# beside it.
node_with_attacker() {
	pf=$1; shift
	(cd "$TMP" && exec unshare -n sh -c 'ip link set lo up || exit 1
	    n=$1 wl=$2; shift 2
	    setpriv --reuid=65534 --regid=65534 --clear-groups "$@" $$ &
	    exec "$n" "$wl" 60' sh "$NODE" "$WL" "$PY" "$ATK" "$@") \
	    >/dev/null 2>&1 &
	echo $! >"$pf"
}
pids=
cleanup() {
	[ -d "$FRZ" ] && echo THAWED >"$FRZ/freezer.state" 2>/dev/null
	for p in $pids; do
		pkill -P "$p" 2>/dev/null
		kill "$p" 2>/dev/null
		rm -f "/tmp/perf-$p.map"
	done
	[ -n "${AGENT_PID:-}" ] && kill -KILL "$AGENT_PID" 2>/dev/null
	i=0
	while [ -d "$FRZ" ] && ! rmdir "$FRZ" 2>/dev/null && [ $i -lt 30 ]; do
		sleep 0.1; i=$((i + 1))
	done
	rm -rf "$TMP"
}
FRZ=/sys/fs/cgroup/freezer/gptest-node-$$
trap cleanup EXIT

# F5: root's node, nobody polling its port.
node_with_attacker "$TMP/f5.pid" poll "$NB/pwned" "$NB/poll.log"
n1=$(cat "$TMP/f5.pid"); pids=$n1
node_wait_usr1 $n1
attack_start "$TMP/f5" 3 --pids "$n1" --nodejs-mode attach-maps
sleep 8
log=$TMP/f5/log
n=$(grep -c "pid $n1 .*other users (uid 65534.*--nodejs-attach-shared-netns" \
    "$log")
[ "$n" -eq 1 ]
ok $? "F5: left alone, one WARN naming --nodejs-attach-shared-netns ($n)"
[ ! -e "$NB/pwned" ]
ok $? "F5: the attacker's payload never ran as root ($(cat "$NB/pwned" 2>/dev/null))"
! grep -q evaluated "$NB/poll.log" 2>/dev/null
ok $? "F5: the attacker never reached an inspector"
kill -0 "$n1" 2>/dev/null && [ ! -e "/tmp/perf-$n1.map" ]
ok $? "F5: that node keeps running, unattached"
attack_checks "$TMP/f5" 3
grep -i 'nodejs' "$log" | grep -v DEBUG | head -5 | sed 's/^/# /'
pkill -P "$n1"

# F6: three nodes, each with nobody racing for its port the moment a
# helper runs or a copy of the writer appears; the operator allowed
# shared namespaces.  And a fourth, slow to open its inspector (frozen,
# as on a loaded host), whose attacker takes the port the moment
# SIGUSR1 is pending on it: after the helper's last look at the port,
# before node could listen.
for i in 2 3 4; do
	node_with_attacker "$TMP/f6-$i.pid" race "$NB/race-$i.log"
	pids="$pids $(cat "$TMP/f6-$i.pid")"
done
node_with_attacker "$TMP/f6-5.pid" race-pending "$NB/race-5.log"
slow=$(cat "$TMP/f6-5.pid")
pids="$pids $slow"
set -- $pids; shift; f6=$*
node_wait_usr1 $f6
frozen=no
if mkdir "$FRZ" 2>/dev/null && echo "$slow" >"$FRZ/cgroup.procs" &&
    echo FROZEN >"$FRZ/freezer.state"; then
	frozen=yes
fi
attack_start "$TMP/f6" 3 --pids "$(echo $f6 | tr ' ' ,)" \
    --nodejs-mode attach-maps --nodejs-attach-shared-netns
log=$TMP/f6/log
# Each node's attempt ends refused or attached; on a loaded host the
# helpers' deadlines and back-off stretch that past 9 s: wait (at most 30 s)
# for every node's outcome line, then judge it.
i=0
while [ $i -lt 60 ]; do
	sleep 0.5; i=$((i + 1))
	[ $i -lt 18 ] && continue
	n=0
	for p in $f6; do
		grep -q "pid $p .*\(left it alone\|leaves it alone: port 9229\|node now writes\|attach-maps failed\)" "$log" &&
		    n=$((n + 1))
	done
	[ "$n" -eq "$(echo $f6 | wc -w)" ] && break
done
grep -q -- '--nodejs-attach-shared-netns: node processes' "$log"
ok $? "F6: the flag's risk is said at start-up"
req=$(cat "$NB"/race-*.log 2>/dev/null | grep -c '^request')
[ "$req" -eq 0 ]
ok $? "F6: no request of the agent's helper reached the attacker's port ($req)"
! grep -q 'this reply came from uid' "$log"
ok $? "F6: the agent never took the attacker's reply for node's"
took=$(cat "$NB"/race-*.log 2>/dev/null | grep -c 'took 127.0.0.1:9229')
refused=0; attached=0; failed=0; bad=
for p in $f6; do
	# refused by the helper, or before it (the port was already taken
	# when the plugin looked: nothing is spawned)
	if grep -q "pid $p .*\(left it alone.*refused: .*9229.*\(uid 65534\|already in use\)\|leaves it alone: port 9229 is already in use\)" "$log" &&
	    [ ! -e "/tmp/perf-$p.map" ]; then
		refused=$((refused + 1))
	elif grep -q "pid $p .*node now writes" "$log" &&
	    grep -q hotAttachWork "/tmp/perf-$p.map" 2>/dev/null; then
		attached=$((attached + 1))
	elif grep -q "pid $p .*attach-maps failed (attempt 1 of" "$log" &&
	    [ ! -e "/tmp/perf-$p.map" ]; then
		# a helper past its deadline on a loaded host: tried again
		# a minute later, which this test does not wait for
		failed=$((failed + 1))
	else
		bad="$bad $p"
	fi
done
diag "the attacker took port 9229 $took times; $refused nodes refused, $attached attached to node itself, $failed failed (to be tried again)"
[ "$failed" -gt 0 ] && grep "attach-maps failed" "$log" | sed 's/^/# /'
for p in $bad; do grep "pid $p " "$log" | sed 's/^/# /'; done
[ -z "$bad" ] && [ $((refused + attached)) -gt 0 ]
ok $? "F6: each node refused (the port was not its own), attached to itself, or failed and waits for its next attempt; at least one settled${bad:+ (not:$bad)}"
if [ $frozen = yes ]; then
	grep -q "pid $slow .*left it alone.*refused: the listener on 127.0.0.1:9229 .* of uid 65534, not one of the process's own descriptors" "$log"
	ok $? "F6: the port taken between the helper's look and node's listen: refused, naming the socket's uid"
	echo THAWED >"$FRZ/freezer.state"
else
	skip "F6: the port taken between the helper's look and node's listen" \
	    "no cgroup v1 freezer to slow node down here"
fi
n=$(for p in $f6; do ls /tmp/.gprofiler-nodejs-perfmap-$p-*; done 2>/dev/null |
    wc -l)
[ "$n" -eq 0 ]
ok $? "F6: no copy of the writer left in /tmp ($n)"
attack_checks "$TMP/f6" 3
grep -i 'pid.*\(left it alone\|node now writes\|failed\)' "$log" | head -6 |
    sed 's/^/# /'
done_testing

#!/bin/sh
# --nodejs-mode attach-maps against processes that pretend to be node
# (F7): a local user (nobody) runs six "node" binaries that catch SIGUSR1,
# each in a network namespace of its own, so that each holds a helper
# until its deadline: five never open an inspector, one opens its own
# port 9229 and answers like node but never replies to the evaluation.
# A real node run by root, in a namespace of its own, started after
# them, is still attached within 15 s: helpers run in parallel (4, at
# most 2 per user, one per namespace), each stopped at 8 s.  A fake that
# failed is not tried again in the run (the next try is 60 s later).
# When the fake that answers is killed, and its helper with it (SIGKILL,
# no chance to clean up), while the copy of the writer is in /tmp, the
# agent removes the copy through the /tmp descriptor it holds: no .so is
# left in any /tmp.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/attack_lib.sh"
. "$top_srcdir/tests/integration/node_lib.sh"
node_attach_require unshare ip setpriv pgrep
tap_tmpdir
node_py_fake
mkdir "$TMP/sh"
cp /bin/dash "$TMP/sh/node"
chmod 755 "$TMP/sh" "$TMP/sh/node"
WL=$top_srcdir/tests/workloads/node_attach.js
ATK=$top_srcdir/tests/integration/node_attack.py

# in_ns PIDFILE CMD...: CMD in a new network namespace (loopback up).
in_ns() {
	pf=$1; shift
	(cd "$TMP" && exec unshare -n sh -c 'ip link set lo up && exec "$@"' \
	    sh "$@") >/dev/null 2>&1 &
	echo $! >"$pf"
}
NB="setpriv --reuid=65534 --regid=65534 --clear-groups"
# The fake that answers like node (Python renamed node).
in_ns "$TMP/f0.pid" $NB env PYTHONHOME=/usr "$TMP/py/node" "$ATK" fake
fakes=$(cat "$TMP/f0.pid")
for i in 1 2 3 4 5; do
	in_ns "$TMP/f$i.pid" $NB "$TMP/sh/node" -c \
	    'trap : USR1; while :; do sleep 1; done'
	fakes="$fakes $(cat "$TMP/f$i.pid")"
done
in_ns "$TMP/real.pid" "$NODE" "$WL" 60
real=$(cat "$TMP/real.pid")
set -- $fakes; pyfake=$1
trap 'for p in $fakes $real; do pkill -P $p; kill -KILL $p; done 2>/dev/null
    rm -f /tmp/perf-$real.map
    [ -n "${AGENT_PID:-}" ] && kill -KILL $AGENT_PID 2>/dev/null
    rm -rf "$TMP"' EXIT
node_wait_usr1 $fakes $real

attack_start "$TMP/out" 3 --pids "$(echo $fakes $real | tr ' ' ,)" \
    --nodejs-mode attach-maps
log=$TMP/out/log
t0=$(date +%s.%N)
attached= killed= copy=
i=0
while [ $i -lt 200 ]; do
	# The answering fake's copy: kill the fake and its helper at once.
	if [ -z "$killed" ] &&
	    copy=$(ls /tmp/.gprofiler-nodejs-perfmap-$pyfake-* 2>/dev/null) &&
	    [ -n "$copy" ]; then
		hp=$(pgrep -f "nodejs-attach $pyfake ")
		if [ -n "$hp" ]; then
			# The helper first: with the fake gone first, it
			# would see the connection end and clean up itself.
			kill -KILL $hp 2>/dev/null
			kill -KILL $pyfake 2>/dev/null
			killed=$(echo $hp)
		fi
	fi
	if [ -z "$attached" ] && grep -q "pid $real .*node now writes" "$log"; then
		attached=$(awk -v t0="$t0" -v t="$(date +%s.%N)" \
		    'BEGIN { printf "%.1f", t - t0 }')
	fi
	sleep 0.1; i=$((i + 1))
done
diag "the real node was attached after ${attached:-(never)} s"
[ -n "$attached" ] && awk -v a="$attached" 'BEGIN { exit !(a <= 15) }'
ok $? "the real node, behind six fakes, attached within 15 s (${attached:-never})"
grep -q hotAttachWork "/tmp/perf-$real.map" 2>/dev/null
ok $? "its perf map names hotAttachWork"
bad=
for p in $fakes; do
	n=$(grep -c "pid $p .*attach-maps \(failed\|left it alone\)" "$log")
	[ "$n" -eq 1 ] || bad="$bad $p:$n"
done
[ -z "$bad" ]
ok $? "each fake was tried once and given up on, not again each cycle${bad:+ ($bad)}"
grep -q "pid $(echo $fakes | cut -d' ' -f2) .*attempt 1 of 3, the next in 60 s" "$log"
ok $? "a failed one is tried again only 60 s later"
[ -n "$killed" ]
ok $? "the fake that answers got a copy of the writer; it and its helper ($killed) were killed"
sleep 1
grep -q "pid $pyfake .*removed /tmp/.gprofiler-nodejs-perfmap-$pyfake-" "$log"
ok $? "the agent removed the copy its killed helper left"
n=$(for p in $fakes $real; do ls /tmp/.gprofiler-nodejs-perfmap-$p-*
    ls /proc/$p/root/tmp/.gprofiler-nodejs-perfmap-*; done 2>/dev/null | wc -l)
[ "$n" -eq 0 ]
ok $? "no copy of the writer left in any of their /tmp ($n)"
attack_checks "$TMP/out" 3
grep -i 'pid.*\(left it alone\|node now writes\|failed\|removed\)' "$log" |
    head -10 | sed 's/^/# /'
done_testing

#!/bin/sh
# --nodejs-mode attach-maps: a node process started WITHOUT
# --perf-basic-prof is made to write /tmp/perf-PID.map at run time
# (SIGUSR1 opens its inspector, the agent's helper loads the perf map
# writer through it and closes the inspector), so perf names its JS
# functions `_[j]`.  Each node runs in a network namespace of its own:
# the helper must enter it to reach its 127.0.0.1:9229.
# Control: without attach-maps the same workload's frames are not named.
# Left alone with one line each: a node whose namespace already has
# port 9229 taken, and one whose user started the inspector.  Attached
# too: a node in a synchronous busy loop, one in a container (PID, mount
# and network namespaces, its own /tmp), one run by another user.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/integration/java_lib.sh"
jv_require
. "$top_srcdir/tests/integration/node_lib.sh"
node_attach_require unshare ip setpriv nsenter ss pgrep
tap_tmpdir
WL=$top_srcdir/tests/workloads/node_attach.js
# The nodes that are only to be left alone idle: CPU for the judged one.
# Every node outlives any run of this test (the trap kills them, a once
# its checks are done): on a loaded host the test took minutes, and a
# node gone before its checks (or its PID reused by another test's node)
# failed "keeps running".
IDLE='setTimeout(() => {}, 600000)'

# forget_maps PID...: a map at one of these fresh PIDs was left by an
# earlier process under the same PID (the suite goes through pid_max many
# times, and not every writer of perf maps cleans up): not theirs.
forget_maps() {
	for p in "$@"; do
		[ -e "/tmp/perf-$p.map" ] || continue
		diag "an earlier process's /tmp/perf-$p.map removed"
		rm -f "/tmp/perf-$p.map"
	done
}

# node_in_ns PIDFILE [node args...]: node in a new network namespace (its
# own loopback), started from $TMP; prints nothing.
node_in_ns() {
	pf=$1; shift
	(cd "$TMP" && exec unshare -n sh -c 'ip link set lo up && exec "$@"' \
	    sh "$NODE" "$@") >/dev/null 2>&1 &
	echo $! >"$pf"
}
node_in_ns "$TMP/a.pid" "$WL" 600	# attached (killed after its checks)
node_in_ns "$TMP/b.pid" "$WL" 600	# control: never attached
# c: port 9229 taken in its namespace (by a listener that is not node's)
(cd "$TMP" && exec unshare -n sh -c 'ip link set lo up &&
    "$1" -c "import socket,time
s=socket.socket(); s.bind((\"127.0.0.1\",9229)); s.listen(); time.sleep(600)" &
    exec "$2" -e "$3"' sh "$PYTHON3" "$NODE" "$IDLE") >/dev/null 2>&1 &
echo $! >"$TMP/c.pid"
# d: the user's own inspector, on another port
node_in_ns "$TMP/d.pid" --inspect=127.0.0.1:9339 -e "$IDLE"
apid=$(cat "$TMP/a.pid"); bpid=$(cat "$TMP/b.pid")
cpid=$(cat "$TMP/c.pid"); dpid=$(cat "$TMP/d.pid"); epid=
forget_maps $apid $bpid $cpid $dpid
trap 'kill $apid $bpid $cpid $dpid $epid 2>/dev/null
    pkill -P $cpid 2>/dev/null
    rm -rf "$TMP" /tmp/perf-$apid.map /tmp/perf-$bpid.map \
    /tmp/perf-$cpid.map /tmp/perf-$dpid.map /tmp/perf-$epid.map' EXIT
sleep 2
[ ! -e "/tmp/perf-$apid.map" ] && [ ! -e "/tmp/perf-$bpid.map" ]
ok $? "node started without --perf-basic-prof writes no perf map"

# Control first: default --nodejs-mode (disabled), one real cycle.
jv_profile "$TMP/ctl" 5 $bpid
ok $? "control: daemon ran one cycle"
[ ! -e "/tmp/perf-$bpid.map" ]
ok $? "control: no perf map was written without attach-maps"
kill $bpid

# Two real cycles: the attach happens early in the first (the plugin
# scans at start); the second, wholly after it, is judged.
mkdir -p "$TMP/out"
GPROFILER_LOCK_NAME=gptest-node-$$ "$GP_BIN" --plugin-dir "$GP_PLUGIN_DIR" \
    -o "$TMP/out" -d 5 -c --no-flamegraph --pids $apid \
    --nodejs-mode attach-maps >"$TMP/out/daemon.log" 2>&1 &
gpid=$!
i=0
while [ $i -lt 300 ] && [ "$(ls "$TMP/out"/profile_*.col 2>/dev/null |
    wc -l)" -lt 2 ] && kill -0 $gpid 2>/dev/null; do
	sleep 0.1; i=$((i + 1))
done
kill -TERM $gpid 2>/dev/null
wait $gpid
ok $? "attach-maps: daemon ran two cycles and stopped cleanly"
[ "$(ls "$TMP/out"/profile_*.col 2>/dev/null | wc -l)" -ge 2 ]
ok $? "two profiles written"
log=$TMP/out/daemon.log
grep -q "pid $apid .*node now writes /tmp/perf-PID.map" "$log"
ok $? "the agent says it attached to pid $apid"
kill -0 $apid 2>/dev/null
ok $? "the attached node keeps running"
! nsenter -t $apid -n sh -c 'exec 3<>/dev/tcp/127.0.0.1/9229' 2>/dev/null &&
    [ -z "$(nsenter -t $apid -n ss -Hltn 'sport = :9229' 2>/dev/null)" ]
ok $? "its inspector port is closed again"
grep -q 'hotAttachWork' "/tmp/perf-$apid.map" 2>/dev/null
ok $? "its perf map names hotAttachWork (compiled before the attach)"
n=$(ls /tmp/.gprofiler-nodejs-perfmap-$apid-* 2>/dev/null | wc -l)
[ "$n" -eq 0 ]
ok $? "no copy of the writer is left in /tmp"
kill $apid
# The nodes left alone: a run of their own (the .col does not say which
# node a stack is from, and theirs are unnamed).  With them e, a node in
# a synchronous busy loop (its event loop never turns): attached, and
# its inspector closed all the same.
node_in_ns "$TMP/e.pid" "$top_srcdir/tests/workloads/node_busy.js" 600
epid=$(cat "$TMP/e.pid")
# f: a container (PID, mount and network namespaces, a /tmp of its own):
# the writer goes to its /tmp, the map is perf-1.map there
# (the script is copied in: a source tree under /tmp is hidden there)
(cd "$TMP" && exec unshare -m -n -p -f --mount-proc sh -c 'js=$(cat "$2") &&
    mount -t tmpfs none /tmp && printf "%s\n" "$js" >/tmp/node_attach.js &&
    ip link set lo up && exec "$1" /tmp/node_attach.js 600' sh "$NODE" "$WL") \
    >/dev/null 2>"$TMP/container.err" &
upid=$!
# g: another user (nobody), in a network namespace of its own
(cd "$TMP" && exec unshare -n sh -c 'ip link set lo up && exec setpriv \
    --reuid=65534 --regid=65534 --clear-groups "$@"' sh "$NODE" "$WL" 600) \
    >/dev/null 2>&1 &
gpid=$!
sleep 1.5
# the container's node: unshare's child (a loaded host may take a while)
i=0
while [ -z "$(pgrep -P $upid)" ] && kill -0 $upid 2>/dev/null &&
    [ $i -lt 50 ]; do
	sleep 0.2; i=$((i + 1))
done
fpid=$(pgrep -P $upid | head -1)
[ -n "$fpid" ] || diag "the container did not start: $(cat "$TMP/container.err")"
forget_maps $epid $fpid $gpid
# (the container's node is its PID namespace's init: only SIGKILL ends it)
trap 'kill $apid $bpid $cpid $dpid $epid $gpid 2>/dev/null
    [ -n "$fpid" ] && kill -KILL $fpid 2>/dev/null
    pkill -P $cpid 2>/dev/null
    rm -rf "$TMP" /tmp/perf-$apid.map /tmp/perf-$bpid.map \
    /tmp/perf-$cpid.map /tmp/perf-$dpid.map /tmp/perf-$epid.map \
    /tmp/perf-$gpid.map' EXIT
jv_profile "$TMP/alone" 3 $(echo $cpid $dpid $epid $fpid $gpid | tr ' ' ,) \
    --nodejs-mode attach-maps
ok $? "attach-maps over the other five: daemon ran one cycle"
log=$TMP/alone/daemon.log
grep -q "pid $epid .*node now writes /tmp/perf-PID.map" "$log" &&
    grep -q 'hotNodeWork' "/tmp/perf-$epid.map" 2>/dev/null
ok $? "a node busy in a synchronous loop is attached too"
kill -0 $epid 2>/dev/null &&
    [ -z "$(nsenter -t $epid -n ss -Hltn 'sport = :9229' 2>/dev/null)" ]
ok $? "it keeps running, its inspector port closed again"
if [ -n "$fpid" ]; then
	grep -q "pid $fpid .*node now writes" "$log" &&
	    grep -q 'hotAttachWork' "/proc/$fpid/root/tmp/perf-1.map" \
	    2>/dev/null && [ ! -e "/tmp/perf-$fpid.map" ] &&
	    [ ! -e "/tmp/perf-1.map" ]
	ok $? "a node in a container: attached, its map in its own /tmp"
	[ -z "$(ls "/proc/$fpid/root/tmp" | grep gprofiler)" ]
	ok $? "no copy of the writer left in the container's /tmp"
else
	skip "a node in a container" "unshare could not start it here"
	skip "no copy of the writer left in the container's /tmp" \
	    "no container"
fi
grep -q "pid $gpid .*node now writes" "$log" &&
    [ "$(stat -c %U "/tmp/perf-$gpid.map" 2>/dev/null)" = nobody ] &&
    grep -q 'hotAttachWork' "/tmp/perf-$gpid.map"
ok $? "a node run by nobody: attached, its map owned by nobody"
n=$(grep -c "pid $cpid .*port 9229 is already in use" "$log")
[ "$n" -eq 1 ]
ok $? "port 9229 taken: one line ($n), process left alone"
kill -0 $cpid 2>/dev/null && [ ! -e "/tmp/perf-$cpid.map" ]
ok $? "that node keeps running, unattached"
n=$(grep -c "pid $dpid .*enabled the inspector" "$log")
[ "$n" -eq 1 ]
ok $? "user's own inspector (--inspect): one line ($n), left alone"
kill -0 $dpid 2>/dev/null && [ ! -e "/tmp/perf-$dpid.map" ]
ok $? "that node keeps running, unattached"

cat >"$TMP/check.py" <<'PY'
import sys
def stacks(d):
    lines = open(d + '/last_profile.col', encoding='utf-8').read().splitlines()[1:]
    st = [(l.rsplit(' ', 1)[0].split(';'), int(l.rsplit(' ', 1)[1])) for l in lines]
    return [(f, c) for f, c in st if len(f) > 2 and f[2] == 'node']
def ok(c, what):
    print(("PASS " if c else "FAIL ") + what)
att, ctl = stacks(sys.argv[1]), stacks(sys.argv[2])
def named(st, fn):
    return sum(c for f, c in st if any(fn in x and x.endswith('_[j]') for x in f))
tot_a = sum(c for f, c in att); tot_c = sum(c for f, c in ctl)
hot_a = named(att, 'hotAttachWork'); hot_c = named(ctl, 'hotAttachWork')
outer = named(att, 'hotAttachOuter')
print("# attached (2nd cycle): %d node samples, %d in hotAttachWork _[j], %d under "
      "hotAttachOuter; control: %d samples, %d named" %
      (tot_a, hot_a, outer, tot_c, hot_c))
ok(tot_a > 0 and tot_c > 0, "perf sampled both nodes")
# The workload spends nearly all its time in hotAttachWork (too large to
# be inlined).
ok(hot_a >= 0.5 * tot_a, "attached: hotAttachWork named in %d of %d "
   "samples" % (hot_a, tot_a))
# Whole JS stacks: the timer's arrow function (or the listOnTimeout it
# was inlined into) named above them.
def walked(f):
    cb = [i for i, x in enumerate(f) if ('node_attach.js' in x or
          'listOnTimeout' in x) and x.endswith('_[j]')]
    hot = [i for i, x in enumerate(f) if 'hotAttachWork' in x and
           x.endswith('_[j]')]
    return cb and hot and cb[0] < hot[-1]
walk = sum(c for f, c in att if walked(f))
ok(walk > 0, "attached: the timer's JS callers named above it in %d "
   "samples" % walk)
ok(hot_c == 0 and named(ctl, 'hotAttachOuter') == 0,
   "control: no sample names them (%d)" % hot_c)
for f, c in sorted(att, key=lambda x: -x[1])[:6]:
    print("# %d %s" % (c, ";".join(f[2:])[-300:]))
PY
jv_check_py "$TMP/check.py" "$TMP/out" "$TMP/ctl"
if ! grep -q "node now writes" "$TMP/out/daemon.log"; then
	diag "the agent's log:"
	grep -i nodejs "$TMP/out/daemon.log" | head -20 | while IFS= read -r l; do diag "$l"; done
fi
done_testing

#!/bin/sh
# A running agent let go of a FUSE server that holds its event loop.  A
# local user (nobody) who wins the race of microseconds between a runtime
# reader's check of a page and its read (docs/RUNTIMES.md) leaves the loop
# waiting in the kernel for their FUSE server, which need never answer.
# Here a fixture plugin makes that read for certain (process_vm_readv of a
# page of nobody's process that is a page of a file on nobody's FUSE
# mount, whose reads never answer).  Within seconds the stop guard's
# thread (two looks, 5 s apart, find the loop asleep in the read) must
# abort that user's FUSE connection, the loop turn again, one
# WARN say what it waited for and what was done, and the cycles go on.
# The same for a look-up (a path of nobody's process) held by nobody's
# mount that every user may enter, at a stop too, and for the race the
# safe open leaves (a mount that comes between its look at the mount
# table and its walk): only the mount on the path is aborted.
# A FUSE mount of root's (an sshfs) is never aborted: with the loop held
# in a read of a file on one, nothing is done until its server answers
# (here: is killed), and then the line says it was left alone.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/fuse_lib.sh"
[ "$(id -u)" -eq 0 ] || skip_all "needs root"
[ -x "$GP_BIN" ] || skip_all "no daemon"
tap_tmpdir
chmod 0711 "$TMP"
trap 'kill -KILL $agent $victim $other_pid $other_stat 2>/dev/null; fuse_stall_stop; [ -n "$other_mnt" ] && umount -l "$other_mnt"; rm -rf "$TMP"' EXIT
export GPROFILER_LOCK_NAME="gptest-fusebreak-$$"
agent= victim= other_pid= other_mnt= other_stat=

d="$TMP/plugins"
fixture_stall_plugin "$d"

# start LABEL: the agent on 1 s cycles with the fixture, its env as set.
start() {
	mkdir -p "$TMP/$1"
	"$GP_BIN" --plugin-dir "$d" --plugin-dir "$GP_PLUGIN_DIR" \
	    --perf-mode disabled -o "$TMP/$1" -d 1 -c --no-flamegraph \
	    >"$TMP/$1.log" 2>&1 &
	agent=$!
	wait_line "$TMP/$1.log" "fixture_stall: reading" 20
}
# stop LABEL: SIGTERM; the exit status in $rc.
stop() {
	kill -TERM "$agent"
	wait_gone "$agent" 5 || kill -KILL "$agent"
	wait "$agent"
	rc=$?
	agent=
	[ "$rc" = 0 ] || tail -5 "$TMP/$1.log" | sed 's/^/# /'
}
cycles() { grep -c "output: wrote" "$1"; }

# 1. nobody's process, nobody's FUSE mount.
fuse_stall_start "$TMP/fz"
mkdir "$TMP/v" && chown 65534:65534 "$TMP/v"
setpriv --reuid=65534 --regid=65534 --clear-groups /usr/bin/python3 \
    "$top_srcdir/tests/workloads/fuse_page.py" "$FUSE_MNT/page" \
    "$TMP/v/ready" 120 >"$TMP/victim.log" 2>&1 &
victim=$!
wait_file() { i=0; while [ ! -s "$1" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done; }
wait_file "$TMP/v/ready"
read -r vpid vaddr <"$TMP/v/ready" || skip_all "the victim did not map the page: $(cat "$TMP/victim.log")"
conn=$(awk -v m="$FUSE_MNT" '$5 == m { split($3, d, ":"); print d[2] }' /proc/self/mountinfo)

FIXTURE_STALL_PID=$vpid FIXTURE_STALL_ADDR=$vaddr start user
sleep 1
[ "$(awk '{ print $3 }' /proc/$agent/stat)" = D ]
ok $? "the loop waits in the kernel for nobody's FUSE server"
wait_line "$TMP/user.log" "fixture_stall: the read returned" 20
grep -q "fixture_stall: the read returned -1" "$TMP/user.log"
ok $? "within seconds the read failed and the loop turned again"
# the loop logs it on its next turn, after the fixture's own line
wait_line "$TMP/user.log" "event loop waited" 10
grep "event loop waited" "$TMP/user.log" | sed 's/^/# /'
grep -q "WARN the event loop waited at least [0-9]* ms in the kernel, reading the memory of pid $vpid: aborted FUSE connection $conn (mounted by uid 65534, the process's user, with requests waiting); it turned again after [0-9.]* s" \
    "$TMP/user.log"
ok $? "one WARN names the wait, the connection aborted and its user"
[ "$(grep -c 'event loop waited' "$TMP/user.log")" -eq 1 ]
ok $? "... once"
c0=$(cycles "$TMP/user.log")
sleep 3
c1=$(cycles "$TMP/user.log")
[ "$c1" -ge $((c0 + 2)) ]
ok $? "the cycles go on ($c0, then $c1 three seconds later)"
err=$(timeout 5 setpriv --reuid=65534 --regid=65534 --clear-groups \
    stat "$FUSE_MNT/another" 2>&1)
case $err in *"not connected"*) true ;; *) false ;; esac
ok $? "nobody's FUSE mount answers no more: its connection is aborted ($err)"
stop user
[ "$rc" = 0 ]
ok $? "SIGTERM then ends it cleanly (exit $rc)"
kill -KILL $victim 2>/dev/null
wait $victim 2>/dev/null
victim=
fuse_stall_stop

# 2. A plain read of a file on a FUSE mount of root's: left alone.
fuse_stall_start "$TMP/fz2" other
FIXTURE_STALL_FILE=$FUSE_MNT/stall start root
# the guard looks every 5 s: two looks have found the loop asleep by 11 s
sleep 11
! grep -q "fixture_stall: the read returned" "$TMP/root.log"
ok $? "root's FUSE mount: the loop still waits after 11 s (nothing aborted)"
kill -KILL "$FUSE_PID"
wait_line "$TMP/root.log" "event loop waited" 10
grep "event loop waited" "$TMP/root.log" | sed 's/^/# /'
grep -q "WARN the event loop waited at least [0-9]* ms in the kernel, reading $FUSE_MNT/stall: a FUSE mount of root's ($FUSE_MNT): not aborted; it turned again after [0-9.]* s" \
    "$TMP/root.log"
ok $? "once its server is gone, one WARN says the mount was root's and left alone"
stop root
[ "$rc" = 0 ]
ok $? "SIGTERM then ends it cleanly (exit $rc)"
fuse_stall_stop

# 3. A look-up for nobody's process, held by nobody's FUSE mount that every
# user may enter (user_allow_other): the safe open judges a process's
# mounts up to a second before its walk, and the mount may come between.
# Another such mount, with a look-up of its own waiting, is not the
# loop's: left alone.
fuse_stall_start "$TMP/fz3b" user-other
other_pid=$FUSE_PID other_mnt=$FUSE_MNT FUSE_PID= FUSE_MNT=
other_conn=$(awk -v m="$other_mnt" '$5 == m { split($3, d, ":"); print d[2] }' /proc/self/mountinfo)
stat "$other_mnt/hang-other" >/dev/null 2>&1 &
other_stat=$!
fuse_stall_start "$TMP/fz3" user-other
setpriv --reuid=65534 --regid=65534 --clear-groups sleep 600 &
victim=$!
conn=$(awk -v m="$FUSE_MNT" '$5 == m { split($3, d, ":"); print d[2] }' /proc/self/mountinfo)
hang=/proc/$victim/root$FUSE_MNT/hang
FIXTURE_STALL_LOOKUP=$hang start lookup
wait_line "$TMP/lookup.log" "fixture_stall: the read returned" 20
grep -q "fixture_stall: the read returned -1" "$TMP/lookup.log"
ok $? "a look-up held by nobody's FUSE server failed within seconds"
wait_line "$TMP/lookup.log" "event loop waited" 10
grep "event loop waited" "$TMP/lookup.log" | sed 's/^/# /'
grep -q "WARN the event loop waited at least [0-9]* ms in the kernel, looking up $hang: aborted FUSE connection $conn at $FUSE_MNT (on the path, in the mount namespace of process $victim; mounted by a user other than root, with requests waiting); it turned again after [0-9.]* s" \
    "$TMP/lookup.log"
ok $? "one WARN names the path, the connection aborted and the namespace"
kill -0 "$other_stat" 2>/dev/null &&
    [ "$(cat "/sys/fs/fuse/connections/$other_conn/waiting")" -gt 0 ]
ok $? "the other waiting mount of nobody's (connection $other_conn) is left alone"
kill -KILL "$other_pid"
umount -l "$other_mnt"
wait "$other_stat" 2>/dev/null
other_pid= other_mnt= other_stat=
c0=$(cycles "$TMP/lookup.log")
sleep 2
[ "$(cycles "$TMP/lookup.log")" -gt "$c0" ]
ok $? "the cycles go on"
stop lookup
[ "$rc" = 0 ]
ok $? "SIGTERM then ends it cleanly (exit $rc)"
fuse_stall_stop

# 4. SIGTERM while such a look-up holds the loop: the process could not
# even exit (a thread waiting for FUSE outlives a fatal signal), so the
# stop lets the server go first, and the loop ends its run itself.  The
# mount is unmounted lazily meanwhile (in no mount table now, its
# connection still held by the look-up): found by its user.
fuse_stall_start "$TMP/fz4" user-other
hang=/proc/$victim/root$FUSE_MNT/hang
conn=$(awk -v m="$FUSE_MNT" '$5 == m { split($3, d, ":"); print d[2] }' /proc/self/mountinfo)
FIXTURE_STALL_LOOKUP=$hang start term
sleep 1
umount -l "$FUSE_MNT"
stop term
[ "$rc" = 0 ]
ok $? "SIGTERM during the look-up: a clean exit (status $rc), not an exit left waiting for the server"
grep "fixture_stall: the read returned" "$TMP/term.log" | sed 's/^/# /'
grep -q "WARN the event loop waited at least [0-9]* ms in the kernel, looking up $hang: aborted FUSE connection $conn (mounted by uid 65534, the user of process $victim, with requests waiting)" \
    "$TMP/term.log"
r=$?
[ $r = 0 ] || grep -v "output: wrote" "$TMP/term.log" | tail -8 | sed 's/^/# /'
ok $r "... after aborting nobody's FUSE connection, unmounted as it was, in one WARN"
fuse_stall_stop

# 5. The race itself, through the safe open: a path of nobody's process
# judged by its mount table, a FUSE mount bound over the directory in the
# second the table is kept (the fixture mounts it, for certain), then the
# walk.  The guard knows whose root the safe open is in.
fuse_stall_start "$TMP/fz5" user-other
mkdir "$TMP/race"
FIXTURE_STALL_ROOT=/proc/$victim/root FIXTURE_STALL_DIR=$TMP/race \
    FIXTURE_STALL_FUSE=$FUSE_MNT start race
wait_line "$TMP/race.log" "fixture_stall: the read returned" 20
grep "fixture_stall: " "$TMP/race.log" | sed 's/^/# /'
grep -q "fixture_stall: the read returned -[0-9]* (Software caused connection abort)" "$TMP/race.log"
ok $? "the safe open's look-up, past a stale mount table, failed within seconds"
wait_line "$TMP/race.log" "event loop waited" 10
grep "event loop waited" "$TMP/race.log" | sed 's/^/# /'
conn=$(awk -v m="$FUSE_MNT" '$5 == m { split($3, d, ":"); print d[2] }' /proc/self/mountinfo)
grep -q "WARN the event loop waited at least [0-9]* ms in the kernel, looking up $TMP/race/hang: aborted FUSE connection $conn at $TMP/race (on the path, in the mount namespace of process $victim; " \
    "$TMP/race.log"
ok $? "one WARN: the connection of the mount on the path, aborted"
stop race
[ "$rc" = 0 ]
ok $? "SIGTERM then ends it cleanly (exit $rc)"
kill -KILL $victim 2>/dev/null
wait $victim 2>/dev/null
victim=
fuse_stall_stop
! grep -q " $TMP/" /proc/self/mountinfo
ok $? "no mount of the test's is left behind"
done_testing

#!/bin/sh
# A local user (nobody) runs a busy program from a FUSE mount every user
# may enter (allow_other: root's sshfs whose server went away, or a
# user's where /etc/fuse.conf has user_allow_other), whose server then
# stops answering getattr (tests/workloads/fuse_stall.c, FUSE_STALL_EXE).
# The agent's readers take each sampled process's identity from its
# /proc/PID/exe (the symbolizer's check for a new image, the runtime
# plugins' tables, the Java plugin's test of every sampled process): a
# stat() there follows the link to the file and asks its server for fresh
# attributes, and waits for it -- no cycles, SIGTERM unanswered (a mount
# root made is never aborted by the stop guard).  The identity needs no
# request (lib/procexe.h: statx, AT_STATX_DONT_SYNC); the agent keeps its
# cycles, CPU, memory and SIGTERM (tests/attack_lib.sh).
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/attack_lib.sh"
. "$top_srcdir/tests/fuse_lib.sh"
[ "$(id -u)" -eq 0 ] || skip_all "needs root"
[ -x "$GP_BIN" ] || skip_all "no daemon"
BUSY=$PWD/tests/workloads/perf_busy
[ -x "$BUSY" ] || skip_all "no tests/workloads/perf_busy (make check)"
tap_tmpdir
chmod 0711 "$TMP"
trap fuse_attack_end EXIT
mkdir -p "$TMP/fz"
cp "$BUSY" "$TMP/fz/busy"
FUSE_STALL_EXE=$TMP/fz/busy
FUSE_STALL_TRIGGER=$TMP/fz/stall-now
export FUSE_STALL_EXE FUSE_STALL_TRIGGER
fuse_stall_start "$TMP/fz" other
ok 0 "a FUSE mount every user may enter serves a program"

setpriv --reuid=65534 --regid=65534 --clear-groups "$FUSE_MNT/exe-busy" \
    -t 30 >/dev/null 2>&1 &
victim=$!
# shellcheck disable=SC2034 # read by fuse_attack_end
FUSE_VICTIMS=$victim
sleep 0.5
kill -0 "$victim" 2>/dev/null
ok $? "nobody runs it from there"

D=3
attack_start "$TMP/out" $D --pids "$victim"
# its first cycle knows the process; then its server stops answering
i=0
while ! ls "$TMP/out"/profile_*.col >/dev/null 2>&1 && [ $i -lt 150 ]; do
	sleep 0.1; i=$((i + 1))
done
touch "$FUSE_STALL_TRIGGER"
sleep 2	# past the kernel's cached attributes (libfuse: 1 s)
# (once the server has the request, the wait is uninterruptible: this
# stat ends only when the server is killed, at the end)
stat -L "/proc/$victim/exe" >/dev/null 2>&1 &
st=$!
sleep 2
kill -0 "$st" 2>/dev/null
ok $? "a stat() of its /proc/PID/exe now waits for the server"
sleep 12
n=$(cat "$TMP/out"/profile_*.col 2>/dev/null | grep -c ';exe-busy;')
[ "$n" -gt 0 ]
ok $? "its samples are in the profiles ($n stacks)"
attack_checks "$TMP/out" $D
done_testing

#!/bin/sh
# A local user (nobody) serves a FUSE file whose reads never answer and
# maps a page of it over the strings at the top of a process's stack,
# where the kernel keeps its arguments and environment
# (tests/workloads/execfn_fuse, its binary named python3, so that the
# Python plugin's discovery reads its /proc/PID/cmdline).  The kernel
# reads that file from the process's memory: before Linux 4.18 a read
# of the page waits for the FUSE server, uninterruptibly (later kernels
# skip pages of files there, so on them this test shows the agent's own
# guard, not a stall).  The host's file opener must refuse the read (a
# file mapped over the strings), say so naming the process, and the agent
# keep its cycles, CPU, memory and SIGTERM (tests/attack_lib.sh).
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/attack_lib.sh"
. "$top_srcdir/tests/fuse_lib.sh"
[ "$(id -u)" -eq 0 ] || skip_all "needs root"
[ -x "$GP_BIN" ] || skip_all "no daemon"
WL=$PWD/tests/workloads/execfn_fuse
[ -x "$WL" ] || skip_all "no tests/workloads/execfn_fuse (make check)"
tap_tmpdir
chmod 0711 "$TMP"
cleanup() {
	[ -n "${victim:-}" ] && kill -KILL "$victim" 2>/dev/null
	# The server's death lets a reader stuck on its page go.
	fuse_stall_stop
	[ -n "${AGENT_PID:-}" ] && kill -KILL "$AGENT_PID" 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT
fuse_stall_start "$TMP/fz"
mkdir "$TMP/v" && chown 65534:65534 "$TMP/v"
cp "$WL" "$TMP/v/python3" && chmod 0755 "$TMP/v/python3"
ok 0 "nobody mounted a FUSE filesystem whose reads never answer"

D=3
attack_start "$TMP/out" $D
# 24 KiB of environment: the stack's frames lie pages below its top, and
# the environment's strings run through the page the victim replaces.
pad=$(head -c 24576 /dev/zero | tr '\0' x)
env -i PAD="$pad" ASAN_OPTIONS=detect_leaks=0 setpriv --reuid=65534 --regid=65534 --clear-groups \
    "$TMP/v/python3" "$FUSE_MNT/stall" "$TMP/v/ready" 12 \
    >"$TMP/victim.log" 2>&1 &
victim=$!
i=0
while [ ! -s "$TMP/v/ready" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
[ -s "$TMP/v/ready" ]
ok $? "the victim mapped a FUSE page over its strings ($(cat "$TMP/v/ready" 2>/dev/null))"
sed 's/^/# /' "$TMP/victim.log"
page=$(cat "$TMP/v/ready" 2>/dev/null)
# Its environment's range (/proc/PID/stat fields 50-51) runs through it.
awk -v lo="$((0x${page:-0}))" \
    '{ sub(/^.*\) /, ""); exit !($48 < lo + 4096 && $49 > lo) }' \
    "/proc/$victim/stat" 2>/dev/null
ok $? "its environment's strings run through the FUSE page"
wait "$victim"
victim_pid=$victim
victim=

attack_checks "$TMP/out" $D
grep -n "arguments or environment" "$TMP/out/log" | head -3 | sed 's/^/# /'
n=$(grep -c "pid $victim_pid: its arguments or environment lie in a page mapped from a file" "$TMP/out/log")
[ "$n" -ge 1 ] && [ "$n" -le 3 ]
ok $? "the log says the victim's cmdline was not read, once a burst ($n lines)"
done_testing

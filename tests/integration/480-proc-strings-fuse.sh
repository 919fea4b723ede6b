#!/bin/sh
# A local user (nobody) serves a FUSE file whose reads never answer and
# maps a page of it over the top of a process's stack, where the kernel
# put its environment's strings and the AT_EXECFN string
# (tests/workloads/execfn_fuse, its binary named python3, so that the
# Python plugin's discovery reads its /proc/PID/cmdline); the process
# burns CPU, so it is sampled.  Two readers meet the page:
#   - the application metadata of a profile ({exe, execfn, arch} per
#     process) reads AT_EXECFN's string from the process's memory: a
#     process_vm_readv of the page leaves the agent in an uninterruptible
#     sleep until the FUSE server gives up, deaf to SIGTERM, no cycle;
#   - the kernel reads /proc/PID/cmdline and environ from that memory
#     too, and before Linux 4.18 waits on the page the same way (later
#     kernels skip pages of files there, so on them this shows the
#     agent's own guard, not a stall).
# The agent must read neither (the page is a file mapping, not the
# stack), say so naming the process, and keep its cycles, CPU, memory and
# SIGTERM (tests/attack_lib.sh).
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/attack_lib.sh"
. "$top_srcdir/tests/fuse_lib.sh"
[ "$(id -u)" -eq 0 ] || skip_all "needs root"
[ -x "$GP_BIN" ] || skip_all "no daemon"
WL=$PWD/tests/workloads/execfn_fuse
[ -x "$WL" ] || skip_all "no tests/workloads/execfn_fuse (make check)"
tap_tmpdir
fuse_attack_begin
cp "$WL" "$TMP/v/python3" && chmod 0755 "$TMP/v/python3"
ok 0 "nobody mounted a FUSE filesystem whose reads never answer"

D=3
attack_start "$TMP/out" $D
# 32 KiB of environment: the stack's frames lie pages below its top.  In
# an ASan build the victim is instrumented too: its LeakSanitizer would
# scan the stack's top at exit and wait on the FUSE page with it.
pad=$(head -c 24576 /dev/zero | tr '\0' x)
env -i PAD="$pad" ASAN_OPTIONS=detect_leaks=0 setpriv --reuid=65534 --regid=65534 --clear-groups \
    "$TMP/v/python3" "$FUSE_MNT/stall" "$TMP/v/ready" 12 \
    >"$TMP/victim.log" 2>&1 &
victim=$!
FUSE_VICTIMS=$victim
i=0
while [ ! -s "$TMP/v/ready" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
[ -s "$TMP/v/ready" ]
ok $? "the victim mapped a FUSE page over its AT_EXECFN string ($(cat "$TMP/v/ready" 2>/dev/null))"
sed 's/^/# /' "$TMP/victim.log"
grep -q " $FUSE_MNT/stall\$" "/proc/$victim/maps" 2>/dev/null
ok $? "its maps show the FUSE file at the stack's top"
# Its environment's range (/proc/PID/stat fields 50-51) runs through it.
page=$(cat "$TMP/v/ready" 2>/dev/null)
awk -v lo="$((0x${page:-0}))" \
    '{ sub(/^.*\) /, ""); exit !($48 < lo + 4096 && $49 > lo) }' \
    "/proc/$victim/stat" 2>/dev/null
ok $? "its environment's strings run through the FUSE page"
wait "$victim"
victim_pid=$victim
FUSE_VICTIMS=

attack_checks "$TMP/out" $D
grep -n "AT_EXECFN" "$TMP/out/log" | head -3 | sed 's/^/# /'
n=$(grep -c "pid $victim_pid: its AT_EXECFN string is in a page mapped from a file" "$TMP/out/log")
[ "$n" -eq 1 ]
ok $? "the log says once that the victim's execfn was not read ($n lines)"
# The victim is in a profile, its execfn left null.
grep -h -o "{ \"exe\": \"[^\"]*/v/python3\", \"execfn\": null" "$TMP/out"/*.col \
    2>/dev/null | head -1 | grep -q .
ok $? "its application metadata is in a profile, execfn null"
grep -n "arguments or environment" "$TMP/out/log" | head -3 | sed 's/^/# /'
n=$(grep -c "pid $victim_pid: its arguments or environment lie in a page mapped from a file" "$TMP/out/log")
[ "$n" -ge 1 ] && [ "$n" -le 3 ]
ok $? "the log says its cmdline was not read, once a burst ($n lines)"
done_testing

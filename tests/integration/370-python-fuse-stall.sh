#!/bin/sh
# A local user (nobody) serves a FUSE file whose reads never answer, maps
# a page of it into a Python process and points the running function's
# name (its code object's co_qualname and co_name) at that page
# (tests/workloads/py_fuse_name.py).  The Python reader follows the name:
# a process_vm_readv there leaves the agent in an uninterruptible sleep
# until the FUSE server gives up, deaf to SIGTERM and with no cycle.  The
# agent must refuse the read (a file on FUSE), say so once naming the
# process and the filesystem, and keep its cycles, CPU, memory and
# SIGTERM (tests/attack_lib.sh).
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/attack_lib.sh"
. "$top_srcdir/tests/fuse_lib.sh"
. "$top_srcdir/tests/workloads/py_lib.sh"
[ "$(id -u)" -eq 0 ] || skip_all "needs root"
[ -x "$GP_BIN" ] || skip_all "no daemon"
py=/usr/bin/python3.11
[ -x "$py" ] || py=$(py_interps | awk 'NR == 1 { print $2 }')
[ -n "$py" ] || skip_all "no CPython 3.8-3.13"
tap_tmpdir
fuse_attack_begin
ok 0 "nobody mounted a FUSE filesystem whose reads never answer"

D=3
attack_start "$TMP/out" $D
i=0
while ! grep -q "sampling Python" "$TMP/out/log" 2>/dev/null &&
    [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
grep -q "sampling Python" "$TMP/out/log"
ok $? "the agent's Python plugin started"

setpriv --reuid=65534 --regid=65534 --clear-groups "$py" \
    "$top_srcdir/tests/workloads/py_fuse_name.py" "$FUSE_MNT/stall" \
    "$TMP/v/ready" 12 >"$TMP/py.log" 2>&1 &
vp=$!
FUSE_VICTIMS=$vp
i=0
while [ ! -s "$TMP/v/ready" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
[ -s "$TMP/v/ready" ]
ok $? "the victim put a FUSE page behind its function's name"
sed 's/^/# /' "$TMP/py.log"
page=$(cat "$TMP/v/ready" 2>/dev/null)
wait $vp
FUSE_VICTIMS=

attack_checks "$TMP/out" $D
grep -i "fuse\|refused" "$TMP/out/log" | head -8 | sed "s/^/# /"
grep -q "pid [0-9]*[ :].*0x$page.* on fuse.fuse_stall" "$TMP/out/log"
ok $? "the log says the read of the FUSE page was refused, and why"
n=$(grep -c "0x$page.* on fuse" "$TMP/out/log")
[ "$n" -eq 1 ]
ok $? "said once ($n lines)"
done_testing

#!/bin/sh
# A local user (uid 65532) runs 20 busy Python processes with 20,000
# mappings each: /proc/PID/maps of ~1.8 MB apiece, which the kernel
# writes anew at every read (show_map_vma, d_path: ~15 ns a byte here).
# Every reader of the agent reads a new process's maps once -- the
# symbolizer and its start-up seed, the Python plugin's discovery and its
# memory guard, the Java plugin's libjvm check, the metadata's AT_EXECFN
# check -- so before their reads shared a budget (core/base/mapsread.c)
# this cost the default agent 5.2 s of CPU in its first minute, and a
# user starting more such processes could make it pay without end.  Now
# reads of the maps of a user's processes stop at that user's share of
# the budget (8 MiB, then 256 KiB a second), the log says they wait, and
# the agent keeps its cycles, CPU, memory and SIGTERM
# (tests/attack_lib.sh).  Not nobody: the tests beside it that run as
# nobody keep their share (483 shows another user's).
# All plugins run, on the attacker's processes (--pids: the CPU measured
# is the attack's, not a busy CI host's).
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/attack_lib.sh"
[ "$(id -u)" -eq 0 ] || skip_all "needs root"
[ -x "$GP_BIN" ] || skip_all "no daemon"
command -v setpriv >/dev/null || skip_all "setpriv(1) missing"
[ -x /usr/bin/python3 ] || skip_all "no /usr/bin/python3"
tap_tmpdir
chmod 0755 "$TMP"
mkdir -p "$TMP/u"
cp "$top_srcdir/bench/maps_many.py" "$TMP/u/" && chmod -R a+rX "$TMP/u"
N=20
M=20000

setpriv --reuid=65532 --regid=65532 --clear-groups /usr/bin/python3 \
    "$TMP/u/maps_many.py" $N $M 120 >/dev/null 2>&1 &
wl=$!
cleanup_wl() { pkill -KILL -P "$wl" 2>/dev/null; kill -KILL "$wl" 2>/dev/null; }
# every child with its mappings (mmap is quick; the children are many)
full=$(attack_maps_wait "$wl" $N $M)
kids=$(pgrep -P "$wl" | tr '\n' ',' | sed 's/,$//')
bytes=$(wc -c <"/proc/$(pgrep -P "$wl" | head -1)/maps" 2>/dev/null)
[ "$full" -ge $N ]
ok $? "uid 65532 runs $N processes of $M mappings each (maps of $bytes bytes)"

D=10
attack_start "$TMP/out" $D --pids "$kids"
sleep 42
n=$(cat "$TMP/out"/profile_*.col 2>/dev/null | grep -c ';python3;')
[ "$n" -gt 0 ]
ok $? "their samples are in the profiles ($n stacks)"
grep -q "maps reads: [0-9]* deferred, the last by its user's budget (uid 65532;" \
    "$TMP/out/log"
ok $? "the log says reads of their maps wait for the budget"
grep "maps reads:" "$TMP/out/log" | tail -1 | sed 's/^/# /'
attack_checks "$TMP/out" $D
cleanup_wl
wait 2>/dev/null
done_testing

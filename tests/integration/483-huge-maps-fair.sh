#!/bin/sh
# One user's huge maps delay only that user's processes.  A local user
# (uid 65532) runs 10 busy processes of 60,000 mappings each, whose maps
# (~5.5 MB apiece) spend that user's share of the maps budget
# (core/base/mapsread.c: 8 MiB, then 256 KiB a second) at the agent's
# start.  While they wait, a second user (uid 65533) starts a small busy
# Python program: its maps are read at once from its own user's share, so
# the Python plugin finds it and its frames are named in the first whole
# cycle after it started.  With one bucket for all users (16 MiB, then
# 512 KiB a second) the first user's reads kept it empty and the second
# user's frames were named in no cycle of the test: 0 stacks.  The agent
# profiles the whole host, on defaults but for -d 10, and keeps its
# cycles, memory and SIGTERM (tests/attack_lib.sh).
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/attack_lib.sh"
[ "$(id -u)" -eq 0 ] || skip_all "needs root"
[ "$(cat /proc/sys/vm/max_map_count)" -gt 60100 ] || skip_all "vm.max_map_count too low"
[ -x "$GP_BIN" ] || skip_all "no daemon"
command -v setpriv >/dev/null || skip_all "setpriv(1) missing"
[ -x /usr/bin/python3.11 ] || skip_all "no /usr/bin/python3.11"
tap_tmpdir
chmod 0755 "$TMP"
mkdir -p "$TMP/u"
cp "$top_srcdir/bench/maps_many.py" "$top_srcdir/tests/workloads/py_duty.py" \
    "$TMP/u/" && chmod -R a+rX "$TMP/u"
N=10
M=60000
HOG=65532
OTHER=65533

setpriv --reuid=$HOG --regid=$HOG --clear-groups /usr/bin/python3 \
    "$TMP/u/maps_many.py" $N $M 120 >/dev/null 2>&1 &
wl=$!
victim=
cleanup() {
	pkill -KILL -P "$wl" 2>/dev/null; kill -KILL "$wl" $victim 2>/dev/null
}
full=$(attack_maps_wait "$wl" $N $M)
[ "$full" -ge $N ]
ok $? "uid $HOG runs $N processes of $M mappings each"

D=10
attack_start "$TMP/out" $D
sleep 4
setpriv --reuid=$OTHER --regid=$OTHER --clear-groups /usr/bin/python3.11 \
    "$TMP/u/py_duty.py" busy >/dev/null 2>&1 &
victim=$!
t_victim=$(date +%s.%N)
ok 0 "uid $OTHER started a busy Python program (pid $victim), 4 s after the agent"
# The first whole cycle after it started, and one more.
sleep $((2 * D + 6))
grep "maps reads:" "$TMP/out/log" | head -2 | sed 's/^/# /'
grep -q "maps reads: [0-9]* deferred, the last by its user's budget (uid $HOG;" \
    "$TMP/out/log"
ok $? "the log says uid $HOG's reads waited for its share"
# The first profile of a cycle begun after the victim started: written
# as its cycle ended, D seconds or more after the victim's start.
first=
for f in "$TMP/out"/profile_*.col; do	# named by time: in order
	if awk -v m="$(stat -c %Y "$f")" -v t="$t_victim" -v d=$D \
	    'BEGIN { exit !(m >= t + d) }'; then
		first=$f
		break
	fi
done
[ -n "$first" ]
ok $? "a whole cycle after the victim started (${first##*/})"
n=$(grep -c ";spin_forever" "$first" 2>/dev/null)
[ "${n:-0}" -gt 0 ]
ok $? "its Python frames are named in that cycle ($n stacks)"
n=$(grep -c ';python3.11;' "$TMP/out"/profile_*.col 2>/dev/null |
    awk -F: '{ s += $NF } END { print s + 0 }')
diag "stacks of python3.11 in all: $n"
attack_checks "$TMP/out" $D 4
cleanup
wait 2>/dev/null
done_testing

#!/bin/sh
# The perf plugin's symbol loader (plugins/common/elf's reader) against a
# hostile binary that an ordinary user (nobody) runs: a busy program whose
# .symtab holds 8000 functions over a 7 MB string table without its final
# NUL (the last name runs to the table's end), exec'd afresh every 0.5 s
# (a new inode: a new table each time).  The agent must read it within its
# budget, name the program's frames from it (gp_hostile_N), and keep its
# cycles, CPU, memory and SIGTERM bounds (attack_checks).
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/workloads/perf_lib.sh"
. "$top_srcdir/tests/attack_lib.sh"
attack_perf_setup

objcopy --strip-all "$WL/perf_busy" "$TMP/u/busy.stripped" &&
    "${PYTHON3:-python3}" "$top_srcdir/tests/workloads/perf_hostile_elf.py" \
    "$TMP/u/busy.stripped" "$TMP/u/hostile" 8000 7 &&
    chmod 0755 "$TMP/u/hostile"
ok $? "a busy program with 8000 functions over a 7 MB .strtab without its final NUL"
chown -R 65534:65534 "$TMP/u"

# nobody runs fresh copies of it, a second each, two at a time
# shellcheck disable=SC2086,SC2016
setpriv $NOBODY timeout 30 sh -c '
	u=$1 n=0
	while :; do
		n=$((n + 1))
		cp "$u/hostile" "$u/h$n" && "$u/h$n" -t 1 >/dev/null &
		sleep 0.5
		[ $n -gt 4 ] && rm -f "$u/h$((n - 4))"
	done' sh "$TMP/u" >"$TMP/attacker.log" 2>&1 &
attacker=$!

out=$TMP/fp
# shellcheck disable=SC2086
attack_start "$out" 3 -f 99 --perf-mode fp $ONLY_PERF
sleep 13
cat "$out"/profile_*.col >"$TMP/fp.col" 2>/dev/null
kill -0 "$AGENT_PID" 2>/dev/null
ok $? "the agent is alive after 13 s of hostile tables"
n=$(grep -c "gp_hostile_" "$TMP/fp.col")
[ "$n" -gt 0 ]
ok $? "its frames named from the hostile table ($n stacks)"
attack_checks "$out" 3 2 64
kill $attacker 2>/dev/null
wait 2>/dev/null
done_testing

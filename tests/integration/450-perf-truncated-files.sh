#!/bin/sh
# perf plugin against files their owner cuts while the agent reads them.
# An mmap()ed file truncated under a reader raises SIGBUS at the next page
# it touches: the agent must read perf maps and debug files with read()
# (libelf's ELF_C_READ, pread), never map them.  As nobody: a JIT process
# whose 2 MiB perf map is truncated in place, rewritten growing and
# replaced, without pause; binaries exec'd afresh (a new table each) whose
# .gnu_debuglink file is truncated and regrown meanwhile; the same under
# --perf-mode dwarf, where libdwfl reads the binaries too (handed an Elf
# read with ELF_C_READ: its own elf_begin maps the file).  The agent must
# not die, must keep its cycles, CPU, memory and SIGTERM bounds, and still
# name what it could read.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/workloads/perf_lib.sh"
. "$top_srcdir/tests/attack_lib.sh"
attack_perf_setup
chown 65534:65534 "$TMP/u"

# The JIT process and a 2 MiB map body (50k lines far from its code).
# shellcheck disable=SC2086
setpriv $NOBODY "$WL/perf_jit" -t 300 &	# until killed at the end
jit=$!
perf_wait_exec $jit perf_jit
i=0
while [ ! -s /tmp/perf-$jit.map ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
# The JIT process's map outlives it: removed with the test's files.
trap 'kill $jit $attacker 2>/dev/null; rm -rf "$TMP" /tmp/perf-$jit.map' EXIT
line=$(head -1 /tmp/perf-$jit.map)
[ -n "$line" ]
ok $? "nobody's JIT process wrote its map ($line)"
{
	echo "$line"
	awk 'BEGIN { for (i = 0; i < 50000; i++)
	    printf "%x 10 padding_function_number_%d\n", 268435456 + i * 16, i }'
} >"$TMP/u/big.map"
chown 65534:65534 "$TMP/u/big.map"

# Binaries without symbols whose debuglink file is beside them.
objcopy --strip-all --add-gnu-debuglink="$WL/perf_busy" "$WL/perf_busy" \
    "$TMP/u/busy.stripped" && cp "$WL/perf_busy" "$TMP/u/full.debug"
ok $? "a stripped perf_busy whose debuglink names perf_busy beside it"
chown -R 65534:65534 "$TMP/u"

# The attacker: the map cut, regrown and replaced; the debug file cut and
# regrown; a fresh copy of the binary exec'd every 0.2 s (a new inode: a
# new table and a new read of its debug file).
# shellcheck disable=SC2086,SC2016
setpriv $NOBODY timeout 40 sh -c '
	u=$1 map=$2
	while :; do
		: >"$map"
		cat "$u/big.map" >>"$map"
		cat "$u/big.map" >"$map.new" && mv -f "$map.new" "$map"
		: >"$u/perf_busy"
		cat "$u/full.debug" >>"$u/perf_busy"
		sleep 0.02	# a 2-CPU host: leave the agent some
	done &
	n=0
	while :; do
		n=$((n + 1))
		cp "$u/busy.stripped" "$u/busy$n" &&
		    "$u/busy$n" -t 1 >/dev/null &
		sleep 0.2
		[ $n -gt 3 ] && rm -f "$u/busy$((n - 3))"
	done' sh "$TMP/u" /tmp/perf-$jit.map >"$TMP/attacker.log" 2>&1 &
attacker=$!

out=$TMP/fp
# shellcheck disable=SC2086
attack_start "$out" 3 -f 99 --perf-mode fp $ONLY_PERF
sleep 12
cat "$out"/profile_*.col >"$TMP/fp.col" 2>/dev/null
kill -0 "$AGENT_PID" 2>/dev/null
ok $? "fp: the agent is alive after 12 s of files cut under it"
! grep -q "SIGBUS\|Bus error" "$out/log"
ok $? "fp: no SIGBUS"
# A map rewritten without pause may never be read whole: its names are
# the owner's loss, not the agent's; said, not checked.
n=$(grep -c "jit_spin_loop_\[j\]" "$TMP/fp.col")
diag "fp: $n stacks named from the map being cut and rewritten"
grep -q "hot_fifty\|hot_thirty\|hot_twenty" "$TMP/fp.col"
ok $? "fp: frames of the stripped binaries named from a debug file read whole"
# The whole host is profiled (the attacker's processes come and go, a CI
# host's compilers and daemons with them): the symbolizer's tables keep to
# their byte budget, and the agent to the bound of every attack, 64 MiB.
attack_checks "$out" 3 2 64

out=$TMP/dwarf
# shellcheck disable=SC2086
attack_start "$out" 3 -f 49 --perf-mode dwarf $ONLY_PERF
sleep 12
kill -0 "$AGENT_PID" 2>/dev/null
ok $? "dwarf: the agent is alive after 12 s of files cut under it"
# DWARF mode also holds what libdw reads of each sampled process's
# modules (their CFI, read, not mapped: a mapping of a cut file raises
# SIGBUS): its own budget (UNWIND_BUDGET_BYTES) keeps it, with the
# symbolizer's, to the bound of every attack.
attack_checks "$out" 3 2 64

kill $attacker $jit 2>/dev/null
wait 2>/dev/null
done_testing

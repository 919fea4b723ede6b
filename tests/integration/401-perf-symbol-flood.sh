#!/bin/sh
# The perf plugin's symbol tables against a program whose .symtab holds
# 4 million function symbols over a small string table (1000 names, each
# repeated): a user (nobody) runs it.  Before the per-table limit (512k
# functions, plugins/perf/sym/elfsym.h), one load of it took the agent's
# peak RSS to 113 MiB; now the table stops at the limit, the rest of the
# section is not read, the log says so, and the agent keeps its cycles,
# CPU, memory and SIGTERM bounds (attack_checks).
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/workloads/perf_lib.sh"
. "$top_srcdir/tests/attack_lib.sh"
attack_perf_setup

objcopy --strip-all "$WL/perf_busy" "$TMP/u/busy.stripped" &&
    "${PYTHON3:-python3}" "$top_srcdir/tests/workloads/perf_hostile_elf.py" \
    "$TMP/u/busy.stripped" "$TMP/u/flood" 4000000 1 1000 &&
    chmod 0755 "$TMP/u/flood"
ok $? "a busy program with 4 million function symbols over 1000 names"
chown -R 65534:65534 "$TMP/u"

# shellcheck disable=SC2086
setpriv $NOBODY "$TMP/u/flood" -t 16 >/dev/null 2>&1 &
busy=$!

# Only the attacker's process (--pids): the agent's CPU is the attack's,
# not that of a busy CI host's other processes (beside a full suite, the
# whole host's took 2.06 s of the 2 s alone).
out=$TMP/fp
# shellcheck disable=SC2086
attack_start "$out" 3 -f 99 --perf-mode fp --pids "$busy" $ONLY_PERF
sleep 13
cat "$out"/profile_*.col >"$TMP/fp.col" 2>/dev/null
kill -0 "$AGENT_PID" 2>/dev/null
ok $? "the agent is alive after 13 s"
n=$(grep -c "gp_hostile_" "$TMP/fp.col")
[ "$n" -gt 0 ]
ok $? "the program's frames named from the symbols within the limit ($n stacks)"
grep -q "flood: [0-9]* symbols not read, past the limit of 524288" "$out/log"
ok $? "the log says how many symbols were not read"
attack_checks "$out" 3 2 64
kill $busy 2>/dev/null
wait 2>/dev/null
done_testing

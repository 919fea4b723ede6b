#!/bin/sh
# The perf plugin's Go function table reader against a stripped "Go"
# program of nobody's whose .gopclntab is 64 MiB: a consistent header over
# 200k functions whose records lie at random offsets in random bytes.  The
# reader used to copy the section whole (the agent's peak RSS went past
# 80 MiB, 219 MiB for a 200 MB one); it now reads it in place through a
# few 16 KiB windows, at most a bounded number of times, so the agent keeps
# its cycles, CPU, memory and SIGTERM bounds (attack_checks).
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/workloads/perf_lib.sh"
. "$top_srcdir/tests/attack_lib.sh"
attack_perf_setup

objcopy --strip-all "$WL/perf_busy" "$TMP/u/busy.stripped" &&
    "${PYTHON3:-python3}" "$top_srcdir/tests/workloads/perf_hostile_elf.py" --go \
    "$TMP/u/busy.stripped" "$TMP/u/gobomb" 64 200000 &&
    chmod 0755 "$TMP/u/gobomb"
ok $? "a busy program with a hostile 64 MiB .gopclntab"
chown -R 65534:65534 "$TMP/u"

# nobody runs a fresh copy of it (a new table to read) every 4 s.  Each
# copy is exec'd by a waiter started before the agent, so that the agent
# profiles only the attacker's processes (--pids): its CPU is the attack's,
# not that of a busy CI host's other processes (beside a full suite, the
# whole host's took 2.04 s of the 2 s alone).
pids=
for n in 1 2 3 4; do
	cp "$TMP/u/gobomb" "$TMP/u/g$n" && mkfifo "$TMP/u/go$n" &&
	    chown 65534:65534 "$TMP/u/g$n" "$TMP/u/go$n" || break
	# shellcheck disable=SC2086,SC2016
	setpriv $NOBODY sh -c 'read x <"$1" && exec "$2" -t 4' sh \
	    "$TMP/u/go$n" "$TMP/u/g$n" >/dev/null 2>&1 &
	pids="$pids${pids:+,}$!"
done
[ "$n" = 4 ]
ok $? "four copies, each waiting to run"

out=$TMP/fp
# shellcheck disable=SC2086
attack_start "$out" 3 -f 99 --perf-mode fp --pids "$pids" $ONLY_PERF
for n in 1 2 3 4; do
	echo go >"$TMP/u/go$n"
	sleep 4
	rm -f "$TMP/u/g$((n - 1))"	# run from a deleted file
done &
attacker=$!
sleep 13
cat "$out"/profile_*.col >"$TMP/fp.col" 2>/dev/null
kill -0 "$AGENT_PID" 2>/dev/null
ok $? "the agent is alive after 13 s"
grep -q ";g[0-9]*;" "$TMP/fp.col"
ok $? "the program was profiled"
attack_checks "$out" 3 2 64
kill $attacker $(echo "$pids" | tr , ' ') 2>/dev/null
wait 2>/dev/null
done_testing

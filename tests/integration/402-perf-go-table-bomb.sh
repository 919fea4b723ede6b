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

# nobody runs it, and a fresh copy (a new table to read) every 4 s
# shellcheck disable=SC2086,SC2016
setpriv $NOBODY timeout 16 sh -c '
	u=$1 n=0
	while :; do
		n=$((n + 1))
		cp "$u/gobomb" "$u/g$n" && "$u/g$n" -t 4 >/dev/null &
		sleep 4
		rm -f "$u/g$((n - 1))"
	done' sh "$TMP/u" >"$TMP/attacker.log" 2>&1 &
attacker=$!

out=$TMP/fp
# shellcheck disable=SC2086
attack_start "$out" 3 -f 99 --perf-mode fp $ONLY_PERF
sleep 13
cat "$out"/profile_*.col >"$TMP/fp.col" 2>/dev/null
kill -0 "$AGENT_PID" 2>/dev/null
ok $? "the agent is alive after 13 s"
grep -q ";g[0-9]*;" "$TMP/fp.col"
ok $? "the program was profiled"
attack_checks "$out" 3 2 64
kill $attacker 2>/dev/null
wait 2>/dev/null
done_testing

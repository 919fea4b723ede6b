#!/bin/sh
# perf plugin: a program already running when the agent starts, first
# sampled while the agent cannot look, and gone before it reads the
# samples.  The kernel's mapping records begin with the agent, so they
# say nothing of it, and /proc/PID/maps is gone by the time its first
# sample is read: only what the agent read of the running processes at
# its start names it (perf record reads every process's maps at its start
# too).  On a busy host this is every shell program that is running when
# the agent starts and exits within its first second.
#
# The program waits (blocked in sigwait, never on CPU) until the agent
# samples, and the agent is stopped (SIGSTOP) before the program spins: the
# kernel keeps sampling into the ring, the agent reads it after the
# program exited.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/workloads/perf_lib.sh"
perf_require
tap_tmpdir
command -v cc >/dev/null || skip_all "no C compiler"
[ -x "$GP_BIN" ] || skip_all "no agent binary"

cat >"$TMP/prog.c" <<'C'
#include <signal.h>
#include <time.h>
/* CPU time: 1 s of it is ~99 samples however busy the host is */
static double now(void) { struct timespec t; clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t); return t.tv_sec + t.tv_nsec / 1e9; }
volatile unsigned long seed_sink;
__attribute__((noinline)) static void seed_spin(double s) { double end = now() + s; while (now() < end) seed_sink++; }
int main(void) {
	sigset_t set; int sig;
	sigemptyset(&set); sigaddset(&set, SIGUSR1);
	sigprocmask(SIG_BLOCK, &set, NULL);
	sigwait(&set, &sig);
	seed_spin(1.0);
	return 0;
}
C
cc -O1 -g -fno-omit-frame-pointer -o "$TMP/seed_prog" "$TMP/prog.c"
ok $? "workload built"

"$TMP/seed_prog" &
wl=$!
mkdir "$TMP/out"
"$GP_BIN" --plugin-dir "$GP_PLUGIN_DIR" -o "$TMP/out" -d 10 -f 99 \
    --no-flamegraph --log-file "$TMP/log" >"$TMP/err" 2>&1 &
agent=$!
i=0
while [ $i -lt 300 ] && ! grep -q 'perf: sampling' "$TMP/log" 2>/dev/null; do
	sleep 0.1; i=$((i + 1))
done
grep -q 'perf: sampling' "$TMP/log"
ok $? "the agent samples"
kill -STOP $agent
kill -USR1 $wl
wait $wl
ok $? "seed_prog spun 1 s of CPU and exited while the agent was stopped"
sleep 0.3
kill -CONT $agent
wait $agent
ok $? "the agent ended its cycle"
grep 'running processes' "$TMP/log" | sed 's/^/# /'

col=$(ls "$TMP/out"/profile_*.col 2>/dev/null | head -1)
[ -n "$col" ] && tail -n +2 "$col" | cut -d';' -f3- >"$TMP/folded"
n=$(awk '/^seed_prog;.*;seed_spin( |;)/ { s += $NF } END { print s + 0 }' \
    "$TMP/folded")
tot=$(awk '/^seed_prog;/ { s += $NF } END { print s + 0 }' "$TMP/folded")
diag "seed_prog: $n of $tot samples in seed_spin"
check "seed_spin named ($n of $tot samples, 1 CPU second at 99 Hz)" \
    test "$n" -ge 50 -a $((n * 100)) -ge $((tot * 95))
done_testing

#!/bin/sh
# A Ruby process caught just after its execve, before the dynamic linker
# has mapped libruby: its first samples come while ld.so is still at work
# (here an LD_AUDIT library spins 0.8 s before libruby is searched, as a
# loaded host or a slow disk would make it wait).  Its attach fails then
# ("no Ruby VM"), and the process must be tried again while young rather
# than ignored for the rest of its life: its Ruby frames are in the
# profile, and the log says it was tried again.
. "$top_srcdir/tests/tap.sh"
[ "$(id -u)" -eq 0 ] || skip_all "needs root"
[ -x "$GP_BIN" ] || skip_all "no daemon"
command -v ruby >/dev/null 2>&1 || skip_all "no ruby (apt-get install ruby)"
ldd "$(command -v ruby)" | grep -q libruby ||
    skip_all "this ruby is not linked to a shared libruby"
tap_tmpdir
wl=$(realpath "$top_srcdir/tests/workloads/ruby_hot.rb")
trap 'kill $agent $rb 2>/dev/null; rm -rf "$TMP"' EXIT

# The audit library links nothing (no libc of its own in the maps, which
# would hide that the program's libc is not mapped yet): raw syscalls.
[ "$(uname -m)" = x86_64 ] || skip_all "the LD_AUDIT spinner is x86-64 only"
cat >"$TMP/slowld.c" <<'C'
#define _GNU_SOURCE
#include <link.h>
#include <stdint.h>
#include <time.h>

static long
now_ms(void)
{
	struct timespec ts;
	long r;

	__asm__ volatile ("syscall" : "=a"(r) : "a"(228L), "D"(1L), "S"(&ts)
	    : "rcx", "r11", "memory");	/* clock_gettime(MONOTONIC) */
	return (ts.tv_sec * 1000 + ts.tv_nsec / 1000000);
}

unsigned int
la_version(unsigned int v)
{
	return (LAV_CURRENT);
}

/* Spin (on CPU: sampled) before the first search for libruby. */
char *
la_objsearch(const char *name, uintptr_t *cookie, unsigned int flag)
{
	static int done;
	const char *p;
	long t0;

	for (p = name; *p != '\0' && !done; p++)
		if (p[0] == 'l' && p[1] == 'i' && p[2] == 'b' && p[3] == 'r' &&
		    p[4] == 'u' && p[5] == 'b' && p[6] == 'y') {
			done = 1;
			for (t0 = now_ms(); now_ms() - t0 < SPIN_MS;)
				;
		}
	return ((char *)name);
}
C
cc -shared -fPIC -nostdlib -O1 -DSPIN_MS=800 -o "$TMP/slowld.so" \
    "$TMP/slowld.c" 2>"$TMP/cc.err" ||
    skip_all "cannot build the LD_AUDIT library: $(head -1 "$TMP/cc.err")"

mkdir -p "$TMP/out"
GPROFILER_LOCK_NAME="gptest-rbyoung-$$" "$GP_BIN" --plugin-dir \
    "$GP_PLUGIN_DIR" -o "$TMP/out" -d 9 -f 99 --no-flamegraph -v \
    >"$TMP/out/log" 2>&1 &
agent=$!
wait_line "$TMP/out/log" "sampling Ruby" 10
ok $? "the agent's Ruby plugin started"
LD_AUDIT="$TMP/slowld.so" ruby "$wl" 7 "$TMP/ready" \
    >/dev/null 2>"$TMP/rb.err" &
rb=$!
wait $agent
ok $? "daemon ran one cycle (exit 0)"
agent=
col=$(ls "$TMP"/out/profile_*.col 2>/dev/null | head -1)
[ -s "$TMP/ready" ]
ok $? "the Ruby workload ran (past its slow start)"
grep -q "pid $rb (.*s old): .*trying again" "$TMP/out/log"
r=$?
ok $r "its first attach, before libruby was mapped, was tried again"
[ $r -eq 0 ] || grep "pid $rb" "$TMP/out/log" | head -5 | sed 's/^/# /'
n=$(grep "hot_a ($wl:[0-9]*)_\[rb\]" "$col" 2>/dev/null |
    awk '{ s += $NF } END { print s + 0 }')
[ "$n" -ge 50 ]
ok $? "its Ruby frames are in the profile ($n samples in hot_a)"
if [ "$n" -lt 50 ]; then
	sed 's/^/# /' "$TMP/rb.err" | head -5
	grep -i "pid $rb\|ruby" "$TMP/out/log" | head -20 | sed 's/^/# /'
	grep -c "_\[rb\]" "$col" | sed 's/^/# stacks with Ruby frames: /'
fi
done_testing

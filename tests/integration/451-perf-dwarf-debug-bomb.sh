#!/bin/sh
# perf plugin, --perf-mode dwarf, against a binary whose DWARF is huge.
# Where .eh_frame does not unwind a frame (a pc it has no FDE for),
# libdwfl tries .debug_frame and, to find it, reads the module's every
# .debug_ section into memory.  As nobody: a program built with -g and
# without unwind tables (its frames are in .debug_frame only), recursing
# 200 frames deep, its .debug_info replaced by 256 MiB.  The agent must
# not read that (it hides all DWARF but .debug_frame from libdw), keep its
# cycles, CPU, memory and SIGTERM bounds, and still unwind the stack.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/workloads/perf_lib.sh"
. "$top_srcdir/tests/attack_lib.sh"
perf_require
[ -x "$GP_BIN" ] || skip_all "daemon not built"
command -v objcopy >/dev/null || skip_all "objcopy(1) missing"
command -v cc >/dev/null || skip_all "no C compiler"
ONLY_PERF="--no-python --no-java --no-ruby --no-php --no-nodejs"
tap_tmpdir
chmod 0755 "$TMP"
mkdir -p "$TMP/u"
cat >"$TMP/deep.c" <<'C'
#include <stdlib.h>
#include <time.h>
static volatile unsigned long sink;
__attribute__((noinline)) static void
deep_frame(int n)
{
	volatile char pad[256];

	pad[0] = (char)n;
	sink += (unsigned long)pad[0];
	if (n > 0)
		deep_frame(n - 1);
	else
		for (long i = 0; i < 2000000; i++)
			sink += (unsigned long)i;
	sink += (unsigned long)pad[0];
}
int
main(int argc, char **argv)
{
	time_t end = time(NULL) + (argc > 1 ? atoi(argv[1]) : 10);

	while (time(NULL) < end)
		deep_frame(200);
	return (0);
}
C
cc -g -O1 -fno-asynchronous-unwind-tables -fno-unwind-tables \
    -o "$TMP/deep" "$TMP/deep.c" &&
    head -c $((256 << 20)) /dev/zero >"$TMP/zero" &&
    objcopy --update-section .debug_info="$TMP/zero" "$TMP/deep" \
    "$TMP/u/deep_bomb" && rm -f "$TMP/zero"
ok $? "a -g program with 256 MiB of .debug_info"
chown -R 65534:65534 "$TMP/u"

# Only the bomb is profiled (--pids): what the whole host costs on top,
# with a CI's compilers and other tests beside it, is 450's to bound.
out=$TMP/out
setpriv --reuid=65534 --regid=65534 --clear-groups "$TMP/u/deep_bomb" 14 &
bomb=$!
attack_start "$out" 3 -f 49 --perf-mode dwarf --pids "$bomb" $ONLY_PERF
sleep 12
kill -0 "$AGENT_PID" 2>/dev/null
ok $? "the agent is alive after 12 s of it"
attack_checks "$out" 3 2 64
kill $bomb 2>/dev/null
wait 2>/dev/null
# Unwound through .debug_frame, as deep as the copied stack goes.
n=$(grep -h ";deep_bomb;" "$out"/*.col 2>/dev/null |
    awk '{ if (gsub(/deep_frame/, "&") >= 10) c += $NF } END { print c + 0 }')
diag "samples with 10 or more deep_frame frames: $n"
[ "$n" -gt 0 ]
ok $? "its deep stacks are unwound"
done_testing

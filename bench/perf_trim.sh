#!/bin/bash
# What giving the heap back costs the perf plugin between cycles, on a busy
# host: both CPUs busy, a shell starting short programs (a dozen binaries
# and Python) without pause, the whole host sampled at 99 Hz.  Per cycle:
# the heap's free and used bytes after the emit, whether it was trimmed
# and how long malloc_trim took (heaptrim.c: only when the heap holds much
# more free memory than usual); then the longest loop callback and the
# plugin's CPU.  Run as root from a build tree after make check:
#
#	bench/perf_trim.sh [BUILDDIR] [SECONDS] [CYCLES]	(. 10 6)
set -u
build=${1:-.}
secs=${2:-10}
cycles=${3:-6}
host=$build/tests/unit/test_perf_host
so=$build/plugins/perf/.libs/perf.so
busy=$build/tests/workloads/perf_busy
tmp=$(mktemp -d /tmp/perftrim.XXXXXX)
pids=""
trap 'kill $pids 2>/dev/null; wait 2>/dev/null; rm -rf "$tmp"' EXIT
for x in "$host" "$so" "$busy"; do
	[ -e "$x" ] || { echo "missing $x: build first (make check)"; exit 1; }
done
[ "$(id -u)" -eq 0 ] || { echo "run as root (BPF)"; exit 1; }

"$busy" -t $((secs * cycles + 10)) -j "$(nproc)" & pids="$pids $!"
( while :; do
	for b in ls cat date uname id env sort uniq wc head tail stat; do
		"$b" /etc/hostname >/dev/null 2>&1
	done
	python3 -c 'sum(range(100000))'
done ) & pids="$pids $!"
sleep 1
echo "perf plugin, $cycles cycles of $secs s at 99 Hz over the whole host;" \
    "$(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
"$host" "$so" -d "$secs" -n "$cycles" -o profiling-frequency=99 \
    >/dev/null 2>"$tmp/err"
grep -E '^DEBUG perf: heap:|^host: cycle' "$tmp/err" |
    sed -e 's/^DEBUG perf: /\t/' -e 's/^host: /  /'
grep -E '^host: longest callback' "$tmp/err" | sed 's/^host: /  /'
echo "  trims: $(grep -c 'trimmed in' "$tmp/err") of $cycles cycles"

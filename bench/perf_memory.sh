#!/bin/bash
# The agent's memory on a busy host, per perf mode: the daemon profiles
# the whole host (--perf-mode MODE, 99 Hz, 3 s cycles, the runtime
# readers off) while both CPUs run a compiler loop (cc1, as, ld: many
# binaries, each with its own symbol tables and call frame information),
# a shell starting short programs and two Python loops.  Its VmRSS and
# VmHWM are read every second; at the end: the peak, the resident set,
# its heap, and what the DWARF unwinder said of its budget.  Run as root
# from a build tree:
#
#	bench/perf_memory.sh [BUILDDIR] [MODE] [SECONDS]	(. dwarf 60)
set -u
build=${1:-.}
mode=${2:-dwarf}
secs=${3:-60}
src=$(cd "$(dirname "$0")/.." && pwd)
bin=$build/gprofiler
plugins=$build/tests/plugindir
tmp=$(mktemp -d /tmp/perfmem.XXXXXX)
pids=""
trap 'kill $pids 2>/dev/null; wait 2>/dev/null; rm -rf "$tmp"' EXIT
for x in "$bin" "$plugins/perf.so"; do
	[ -e "$x" ] || { echo "missing $x: build first (make check)"; exit 1; }
done
[ "$(id -u)" -eq 0 ] || { echo "run as root (BPF)"; exit 1; }

( while :; do
	gcc -O2 -g -I"$src/include" -c "$src/core/base/textesc.c" \
	    -o "$tmp/t.o" >/dev/null 2>&1
done ) & pids="$pids $!"
( while :; do
	for b in ls cat date uname id env sort uniq wc head tail stat; do
		"$b" /etc/hostname >/dev/null 2>&1
	done
done ) & pids="$pids $!"
for i in 1 2; do
	python3 -c 'while True: sum(range(100000))' & pids="$pids $!"
done
sleep 2
echo "gprofiler --perf-mode $mode for $secs s at 99 Hz, 3 s cycles;" \
    "$(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
GPROFILER_LOCK_NAME=perfmem-$$ "$bin" --plugin-dir "$plugins" -o "$tmp/out" \
    -d 3 -c -v -f 99 --perf-mode "$mode" --no-flamegraph \
    --python-mode disabled --java-mode disabled --ruby-mode disabled \
    --php-mode disabled --nodejs-mode disabled >"$tmp/log" 2>&1 &
agent=$!
peak=0
i=0
while [ $i -lt "$secs" ] && kill -0 $agent 2>/dev/null; do
	sleep 1
	i=$((i + 1))
	h=$(awk '/^VmHWM/ { print $2 }' /proc/$agent/status 2>/dev/null)
	[ -n "$h" ] && [ "$h" -gt "$peak" ] && peak=$h
done
rss=$(awk '/^VmRSS/ { print $2 }' /proc/$agent/status 2>/dev/null)
heap=$(awk '/\[heap\]/ { h = 1; next } h && /^Rss:/ { print $2; exit }' \
    /proc/$agent/smaps 2>/dev/null)
kill -TERM $agent 2>/dev/null
wait $agent 2>/dev/null
awk -v p="$peak" -v i="$i" -v r="${rss:-0}" -v h="${heap:-0}" 'BEGIN {
	printf "  peak RSS %.1f MiB, RSS at %d s %.1f MiB, heap %.1f MiB\n",
	    p / 1024, i, r / 1024, h / 1024 }'
echo "  profiles: $(ls "$tmp/out"/profile_*.col 2>/dev/null | wc -l)"
grep -E "call frame|unwind" "$tmp/log" | sort | uniq -c | sort -rn | head -5 |
    sed 's/^/  /'

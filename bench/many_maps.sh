#!/bin/bash
# What the agent costs on a host of large processes: N Python processes
# (default 100) with M mappings each (default 5,000: shared anonymous
# mappings, one line of /proc/PID/maps each, as a large C++ service or a
# JVM has thousands), each busy 1 ms in 100 so every one is sampled each
# cycle.  The perf-only agent (the runtime plugins off) at -f 49 and 10 s
# cycles; prints its CPU seconds over the first minute (start-up: the seed,
# each process's first maps) and per minute over the two after (steady:
# what a cycle costs), and its perf_maps_rereads per cycle.  Run as root
# from a build tree after make check:
#
#	bench/many_maps.sh [BUILDDIR] [N] [M]	(. 100 5000)
set -u
build=${1:-.}
n=${2:-100}
m=${3:-5000}
gp=$build/gprofiler
plugdir=$build/tests/plugindir
tmp=$(mktemp -d /tmp/manymaps.XXXXXX)
wl=''
ap=''
cleanup() {
	[ -n "$ap" ] && kill -TERM "$ap" 2>/dev/null
	[ -n "$wl" ] && kill "$wl" 2>/dev/null
	wait 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
[ -x "$gp" ] || { echo "missing $gp: build first (make check)"; exit 1; }
[ "$(id -u)" -eq 0 ] || { echo "run as root (BPF)"; exit 1; }

python3 "$(dirname "$0")/maps_many.py" "$n" "$m" 260 &
wl=$!
sleep 15	# every child has its mappings

unshare -n sh -c "ip link set lo up; exec \"$gp\" --plugin-dir \"$plugdir\" \
    -o \"$tmp/out\" -d 10 -f 49 -c --no-flamegraph --python-mode disabled \
    --ruby-mode disabled --php-mode disabled --java-mode disabled" \
    >"$tmp/agent.log" 2>&1 &
sleep 2
ap=$(pgrep -f "$tmp/out" | tail -1)
[ -n "$ap" ] || { echo "the agent did not start"; cat "$tmp/agent.log"; exit 1; }
hz=$(getconf CLK_TCK)
cpu() { awk '{ print $14 + $15 }' "/proc/$ap/stat"; }
a=$(cpu); sleep 60; b=$(cpu); sleep 120; c=$(cpu)
awk -v a="$a" -v b="$b" -v c="$c" -v hz="$hz" -v n="$n" -v m="$m" 'BEGIN {
	printf "%d processes x %d mappings: agent CPU %.2f s in the first " \
	    "minute, %.2f s a minute after\n", n, m, (b - a) / hz,
	    (c - b) / hz / 2 }'
printf 'perf_maps_rereads per cycle:'
grep -ho '"perf_maps_rereads": [0-9]*' "$tmp"/out/*.col | cut -d' ' -f2 |
    tr '\n' ' '
echo

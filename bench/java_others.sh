#!/bin/bash
# What the Java plugin costs on a host with many processes that are not
# JVMs: 100 Python processes (never a JVM) with 5,000 mappings each, each
# busy 1 ms in 100 so the system profiler samples them every cycle.  The
# agent runs with the java plugin and without it (--java-mode disabled),
# side by side over the same window, the other runtime plugins off;
# prints each agent's CPU seconds (bench/rusage), the difference (the
# java plugin's share) and its last snapshot line (maps reads spared).
# Run as root from a build tree after make check:
#
#	bench/java_others.sh [BUILDDIR] [SECONDS] [CYCLE]	(. 60 10)
set -u
build=${1:-.}
secs=${2:-60}
cycle=${3:-10}
gp=$build/gprofiler
plugdir=$build/tests/plugindir
rusage=$build/bench/rusage
tmp=$(mktemp -d /tmp/javaothers.XXXXXX)
wl=
cleanup() {
	[ -n "$wl" ] && kill "$wl" 2>/dev/null
	wait 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
for x in "$gp" "$rusage"; do
	[ -e "$x" ] || { echo "missing $x: build first (make check)"; exit 1; }
done
[ "$(id -u)" -eq 0 ] || { echo "run as root (BPF)"; exit 1; }

python3 "$(dirname "$0")/maps_many.py" 100 5000 $((2 * secs + 60)) &
wl=$!
sleep 15	# every child has its mappings

run() {
	name=$1; shift
	mkdir -p "$tmp/$name"
	unshare -n sh -c "ip link set lo up; exec \"$rusage\" \"$tmp/$name.time\" \
	    timeout -s TERM $secs \"$gp\" --plugin-dir \"$plugdir\" \
	    -o \"$tmp/$name\" -d $cycle -c -v --no-flamegraph \
	    --python-mode disabled --ruby-mode disabled --php-mode disabled $*" \
	    >"$tmp/$name.log" 2>&1
}
run java
run nojava --java-mode disabled
on=$(cut -d' ' -f1 "$tmp/java.time")
off=$(cut -d' ' -f1 "$tmp/nojava.time")
awk -v s="$secs" -v a="$on" -v b="$off" 'BEGIN { printf "agent CPU over %s s: " \
    "java %.2f s, without %.2f s, the java plugin %.2f s\n", s, a, b, a - b }'
grep 'java: snapshot' "$tmp/java.log" | tail -1 | sed 's/^DEBUG java: /last /'

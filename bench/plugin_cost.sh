#!/bin/bash
# What the runtime plugins cost (issue 13, "Cost"): the default agent (every
# cpu-mode plugin on: perf, python, java, ruby) against the perf-only agent
# (--python-mode disabled --java-mode disabled --ruby-mode disabled), side
# by side over the same window at the default 11 Hz, with a workload keeping
# every CPU busy, in two cases:
#	a  no Python process, no JVM
#	b  100 idle Python processes and 5 idle JVMs
# Prints each agent's CPU seconds (user + sys, children such as jattach
# included, from bench/rusage) and peak RSS, and the ratio default/perf-only
# (target: <= 1.5).  Run as root from a build tree after make check:
#
#	bench/plugin_cost.sh [BUILDDIR] [SECONDS] [RUNS]	(. 60 1)
#
# With RUNS > 1 each case is run RUNS times and the medians are printed.
# Without java/javac the JVMs of case b are left out (said in its row).
set -u
build=${1:-.}
secs=${2:-60}
runs=${3:-1}
gp=$build/gprofiler
plugdir=$build/tests/plugindir
wl=$build/tests/workloads/perf_busy
rusage=$build/bench/rusage
ncpu=$(nproc)
tmp=$(mktemp -d /tmp/plugincost.XXXXXX)
kids=()
cleanup() {
	[ ${#kids[@]} -gt 0 ] && kill "${kids[@]}" 2>/dev/null
	wait 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
for x in "$gp" "$wl" "$rusage"; do
	[ -e "$x" ] || { echo "missing $x: build first (make check)"; exit 1; }
done
[ "$(id -u)" -eq 0 ] || { echo "run as root (BPF)"; exit 1; }
if [ -f "$build/Makefile" ]; then
	make -s -C "$build" tests/plugindir.stamp >/dev/null 2>&1 ||
	    { echo "cannot refresh $plugdir (make check first)"; exit 1; }
fi
py=$(command -v python3) || { echo "python3 missing"; exit 1; }
# An idle JVM, compiled here (no class file in the tree).
java=
if command -v java >/dev/null && command -v javac >/dev/null; then
	cat >"$tmp/Idle.java" <<'EOF'
public class Idle { public static void main(String[] a) throws Exception { while (true) Thread.sleep(1000); } }
EOF
	javac -d "$tmp" "$tmp/Idle.java" && java=$(command -v java)
fi

# agent NAME ARGS...: one agent for one cycle of the window, under its own
# lock name (the other agent, or one installed on the host, may be running).
agent() {
	name=$1; shift
	mkdir -p "$tmp/$name.d"
	GPROFILER_LOCK_NAME="plugincost-$name-$$" GPROFILER_CONFIG='' \
	    "$rusage" "$tmp/$name.time" "$gp" --plugin-dir "$plugdir" \
	    -d "$secs" -o "$tmp/$name.d" --no-flamegraph \
	    --log-file "$tmp/$name.d/log" --spool-dir "$tmp/$name.d/spool" \
	    --state-dir "$tmp/$name.d/st" "$@" >/dev/null 2>&1
}

# measure CASE NPY NJVM: both agents side by side over one window, the
# workload on every CPU; appends "cpu rss" to $tmp/CASE.{all,perf}.
measure() {
	local c=$1 npy=$2 njvm=$3 i
	kids=()
	for i in $(seq 1 "$npy"); do
		"$py" -c 'import time
while True: time.sleep(1)' & kids+=($!)
	done
	if [ -n "$java" ]; then
		for i in $(seq 1 "$njvm"); do
			"$java" -Xmx64m -cp "$tmp" Idle >/dev/null 2>&1 &
			kids+=($!)
		done
	fi
	"$wl" -t $((secs + 8)) -j "$ncpu" & kids+=($!)
	sleep 10	# idle: the JVMs' start-up (JIT, class loading) is over
	agent all & a=$!
	agent perf --python-mode disabled --java-mode disabled \
	    --ruby-mode disabled & p=$!
	wait $a $p
	kill "${kids[@]}" 2>/dev/null
	wait 2>/dev/null
	kids=()
	cat "$tmp/all.time" >>"$tmp/$c.all"
	cat "$tmp/perf.time" >>"$tmp/$c.perf"
	rm -rf "$tmp"/all.d "$tmp"/perf.d
}

# median FILE COLUMN
median() {
	awk -v k="$2" '{ print $k }' "$1" | sort -g | awk '{ v[NR] = $1 }
	    END { if (NR % 2) print v[(NR + 1) / 2];
	    else printf "%.6f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

echo "# $ncpu CPUs, window $secs s at 11 Hz, $runs run(s), load average $(cut -d' ' -f1-3 /proc/loadavg)"
printf "%-28s %10s %9s %10s %9s %7s\n" case default_cpu_s rss_kb \
    perfonly_cpu_s rss_kb ratio
for c in a b; do
	if [ $c = a ]; then npy=0; njvm=0; else npy=100; njvm=5; fi
	for r in $(seq 1 "$runs"); do
		measure $c $npy $njvm
	done
	ca=$(median "$tmp/$c.all" 1); ma=$(median "$tmp/$c.all" 2)
	cp=$(median "$tmp/$c.perf" 1); mp=$(median "$tmp/$c.perf" 2)
	[ -z "$java" ] && [ $njvm -gt 0 ] && njvm="0 (no java)"
	printf "%-28s %10.3f %9d %10.3f %9d %7.2f\n" \
	    "$c: $npy Python, $njvm JVM" "$ca" "$ma" "$cp" "$mp" \
	    "$(echo "scale=4; $ca / $cp" | bc)"
done

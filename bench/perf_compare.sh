#!/bin/bash
# Compare the perf plugin with what gProfiler runs (perf record -a -g +
# perf script + folding) and with bpftrace, profiling the same busy
# workload on every CPU for the same window at 11 Hz and 99 Hz.
# Reports CPU seconds (user+sys, children included), peak RSS, the fraction
# of user frames symbolized, and the ratios.  Run as root from a build tree:
#
#	bench/perf_compare.sh [BUILDDIR] [SECONDS]	(default . and 10)
#
# The agent row is the perf plugin alone (test_perf_host loads perf.so); the
# agent's warnings and the load average are printed as "#" lines.  When the
# build has the daemon (BUILDDIR/gprofiler and tests/plugindir), the daemon
# is measured too, running the same window as one cycle, with the Python
# and Java plugins off (gprofiler-perf) and on (gprofiler-all): its floor
# (libcurl, TLS, JSON) is the core's, not the perf plugin's.  BENCH_DAEMON=0
# skips those rows.
set -u
build=${1:-.}
secs=${2:-10}
wl=$build/tests/workloads/perf_busy
host=$build/tests/unit/test_perf_host
so=$build/plugins/perf/.libs/perf.so
rusage=$build/bench/rusage
ncpu=$(nproc)
tmp=$(mktemp -d /tmp/perfbench.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
for x in "$wl" "$host" "$so" "$rusage"; do
	[ -e "$x" ] || { echo "missing $x: build first (make check)"; exit 1; }
done
command -v perf >/dev/null || { echo "perf (linux-perf) missing"; exit 1; }
command -v bpftrace >/dev/null || { echo "bpftrace missing"; exit 1; }

# measure NAME CMD...: CPU seconds and peak RSS of CMD and its children
# (bench/rusage: getrusage to the microsecond; children are waited for,
# so they count).
measure() {
	name=$1; shift
	"$rusage" "$tmp/$name.time" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err"
	read -r c m <"$tmp/$name.time"
	echo "$name $(printf '%.3f' "$c") $m"
}

# user-frame symbolization of the workload's folded stacks
# "perf_busy;f;...;f count"
symfrac() {
	awk '/^perf_busy;/ { n = $NF; $NF = ""; c = split($0, f, ";");
	    for (i = 2; i <= c; i++) { g = f[i]; sub(/ +$/, "", g);
	        if (g ~ /_\[k\]$/) continue; t += n;
	        if (g != "[unknown]" && g !~ /^\(/ && g !~ /^0x/) r += n } }
	    END { if (t) printf "%.3f", r / t; else print "n/a" }' "$1"
}

fold_perf() {
	# perf script stacks to folded lines (what gProfiler's collapse does)
	awk '/^[^ \t]/ { if (st != "") print comm st " 1"; split($0, a, " ");
	        comm = a[1]; st = ""; next }
	    /^[ \t]+[0-9a-f]+ / { sym = $2; sub(/\+0x[0-9a-f]+$/, "", sym);
	        if (sym == "[unknown]") { d = $3; gsub(/[()]/, "", d);
	            sym = "(" d ")" }
	        else if ($0 ~ /kernel\.kallsyms|vmlinux/) sym = sym "_[k]";
	        st = ";" sym st; next }
	    END { if (st != "") print comm st " 1" }'
}

gp=$build/gprofiler
plugdir=$build/tests/plugindir
# daemon NAME HZ ARGS...: the daemon for one cycle of the window
daemon() {
	name=$1; hz=$2; shift 2
	mkdir -p "$tmp/$name.d"
	r=$(measure "$name" "$gp" --plugin-dir "$plugdir" -d "$secs" \
	    -f "$hz" -o "$tmp/$name.d" --no-flamegraph \
	    --pid-file "$tmp/$name.d/pid" --log-file "$tmp/$name.d/log" \
	    --spool-dir "$tmp/$name.d/spool" --state-dir "$tmp/$name.d/st" "$@")
	set -- $r
	daemon_cpu=$2
	# .col lines: "index;container;comm;frames count"
	sed -n 's/^[^#;]*;[^;]*;//p' "$tmp/$name.d/last_profile.col" \
	    >"$tmp/$name.fold" 2>/dev/null
	printf "%-14s %4s %10s %10s %8s\n" "$name" "$hz" "$2" "$3" \
	    "$(symfrac "$tmp/$name.fold")"
	grep -E '^(WARN|ERR)' "$tmp/$name.err" | sed "s/^/#   $name: /"
	rm -rf "$tmp/$name.d"
}

# Warm-up, not measured: every tool once, so that no row pays for reading
# its binaries and libraries from disk while the others find them cached.
"$host" "$so" -d 1 >/dev/null 2>&1
perf record -q -a -g -F 11 -o "$tmp/warm.data" -- sleep 1 >/dev/null 2>&1 &&
    perf script -i "$tmp/warm.data" >/dev/null 2>&1
timeout -s INT 2 bpftrace -e 'profile:hz:11 { @[comm, kstack, ustack] =
    count(); }' >/dev/null 2>&1
if [ -x "$gp" ] && [ -d "$plugdir" ]; then
	"$gp" --plugin-dir "$plugdir" -d 1 -o "$tmp/warm.d" \
	    --pid-file "$tmp/warm.pid" --spool-dir "$tmp/warm.spool" \
	    --state-dir "$tmp/warm.st" >/dev/null 2>&1
fi
rm -rf "$tmp"/warm.*

echo "# $(nproc) CPUs, window ${secs} s, load average $(cut -d' ' -f1-3 /proc/loadavg)"
printf "%-14s %4s %10s %10s %8s\n" tool Hz cpu_s rss_kb user_sym
for hz in 11 99; do
	"$wl" -t $((secs + 4)) -j "$ncpu" & busy=$!
	sleep 1
	r=$(measure agent "$host" "$so" -d "$secs" -o profiling-frequency=$hz)
	grep -v '^#' "$tmp/agent.out" >"$tmp/agent.fold"
	set -- $r; a_cpu=$2; a_rss=$3
	printf "%-14s %4s %10s %10s %8s\n" agent $hz "$a_cpu" "$a_rss" \
	    "$(symfrac "$tmp/agent.fold")"
	grep -v '^DEBUG' "$tmp/agent.err" | sed 's/^/#   agent: /'

	r=$(measure perf sh -c "perf record -q -a -g -F $hz -o $tmp/perf.data \
	    -- sleep $secs && perf script -i $tmp/perf.data \
	    -F comm,pid,tid,ip,sym,dso 2>/dev/null >$tmp/perf.script")
	fold_perf <"$tmp/perf.script" >"$tmp/perf.fold"
	set -- $r; p_cpu=$2; p_rss=$3
	printf "%-14s %4s %10s %10s %8s\n" perf $hz "$p_cpu" "$p_rss" \
	    "$(symfrac "$tmp/perf.fold")"

	r=$(measure bpftrace timeout -s INT "$((secs + 1))" bpftrace -e \
	    "profile:hz:$hz { @[comm, kstack, ustack] = count(); }")
	set -- $r; b_cpu=$2; b_rss=$3
	printf "%-14s %4s %10s %10s %8s\n" bpftrace $hz "$b_cpu" "$b_rss" "-"
	wait $busy
	if [ "${BENCH_DAEMON:-1}" != 0 ] && [ -x "$gp" ] && [ -d "$plugdir" ]; then
		"$wl" -t $((2 * secs + 6)) -j "$ncpu" & busy=$!
		sleep 1
		daemon gprofiler-perf $hz --no-python --no-java
		g_cpu=$daemon_cpu
		daemon gprofiler-all $hz
		wait $busy
		echo "ratios at $hz Hz: gprofiler-perf/perf cpu" \
		    "$(echo "scale=3; $g_cpu / $p_cpu" | bc)" \
		    "gprofiler-perf/bpftrace cpu" \
		    "$(echo "scale=3; $g_cpu / $b_cpu" | bc)"
	fi
	echo "ratios at $hz Hz: agent/perf cpu $(echo "scale=3; $a_cpu / $p_cpu" | bc)" \
	    "agent/bpftrace cpu $(echo "scale=3; $a_cpu / $b_cpu" | bc)" \
	    "agent/perf rss $(echo "scale=3; $a_rss / $p_rss" | bc)"
	echo "# load average $(cut -d' ' -f1-3 /proc/loadavg)"
done

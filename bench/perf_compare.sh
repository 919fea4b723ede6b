#!/bin/bash
# Compare the perf plugin with what gProfiler runs (perf record -a -g +
# perf script + folding) and with bpftrace: the same busy workload on every
# CPU, the same window length, at 11 Hz and 99 Hz.  Reports CPU seconds (user + sys, children included, to
# the microsecond), peak RSS, the fraction of user frames symbolized, and
# the ratios of the medians.  Each tool runs alone over its own window of
# the workload (side by side they would profile, and symbolize, each other).  Run as root from a build tree:
#
#	bench/perf_compare.sh [BUILDDIR] [SECONDS] [RUNS]	(. 10 1)
#
# The agent row is the perf plugin alone (test_perf_host loads perf.so).
# When the build has the daemon (BUILDDIR/gprofiler and tests/plugindir),
# the daemon runs the same window as one cycle, with the Python and Java
# plugins off (gprofiler-perf: what the perf ratios are about) and on
# (gprofiler-all).  BENCH_DAEMON=0 skips those rows, BENCH_DAEMON=perf the
# second.  Each tool is warmed up
# once, unmeasured, so no row pays for cold disk reads.  A short-lived
# agent's CPU time is a few tens of milliseconds, so other work on the host
# (new processes it must symbolize) shows: use RUNS >= 3 and a quiet host.
set -u
build=${1:-.}
secs=${2:-10}
runs=${3:-1}
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
	echo "$name $(printf '%.4f' "$c") $m"
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
daemons=0
[ "${BENCH_DAEMON:-1}" != 0 ] && [ -x "$gp" ] && daemons=1
# The daemon loads the plugins of tests/plugindir: copies made by make check.
if [ "$daemons" = 1 ] && [ -f "$build/Makefile" ]; then
	make -s -C "$build" tests/plugindir.stamp >/dev/null 2>&1 ||
	    { echo "cannot refresh $plugdir (make check first)"; exit 1; }
fi
[ -d "$plugdir" ] || daemons=0

# daemon NAME HZ ARGS...: the daemon for one cycle of the window (its own
# lock name: an agent installed on the host may be running).
daemon() {
	name=$1; hz=$2; shift 2
	mkdir -p "$tmp/$name.d"
	GPROFILER_LOCK_NAME="bench-$name-$$" GPROFILER_CONFIG='' measure \
	    "$name" "$gp" --plugin-dir "$plugdir" -d "$secs" -f "$hz" \
	    -o "$tmp/$name.d" --no-flamegraph \
	    --pid-file "$tmp/$name.d/pid" --log-file "$tmp/$name.d/log" \
	    --spool-dir "$tmp/$name.d/spool" --state-dir "$tmp/$name.d/st" "$@"
}

# row NAME HZ FOLDFILE|-: print a measured row, keep its CPU for the median
row() {
	read -r _ c m <"$tmp/$1.row"
	printf "%-14s %4s %10s %10s %8s\n" "$1" "$2" "$c" "$m" \
	    "$([ "$3" = - ] && echo - || symfrac "$3")"
	echo "$c" >>"$tmp/cpu.$1.$2"
	echo "$m" >>"$tmp/rss.$1.$2"
}

median() {
	sort -g "$1" | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2];
	    else printf "%.6f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

ratio() { echo "scale=3; $1 / $2" | bc; }

# loaded CMD...: CMD while the workload keeps every CPU busy
loaded() {
	"$wl" -t $((secs + 4)) -j "$ncpu" & _busy=$!
	sleep 1
	"$@"
	wait $_busy
}

# Warm-up, not measured: every tool once, so that no row pays for reading
# its binaries and libraries from disk while the others find them cached.
"$host" "$so" -d 1 >/dev/null 2>&1
perf record -q -a -g -F 11 -o "$tmp/warm.data" -- sleep 1 >/dev/null 2>&1 &&
    perf script -i "$tmp/warm.data" >/dev/null 2>&1
timeout -s INT 2 bpftrace -e 'profile:hz:11 { @[comm, kstack, ustack] =
    count(); }' >/dev/null 2>&1
if [ "$daemons" = 1 ]; then
	GPROFILER_CONFIG='' "$gp" --plugin-dir "$plugdir" -d 1 \
	    -o "$tmp/warm.d" --pid-file "$tmp/warm.pid" \
	    --spool-dir "$tmp/warm.spool" --state-dir "$tmp/warm.st" \
	    >/dev/null 2>&1
fi
rm -rf "$tmp"/warm.*

echo "# $(nproc) CPUs, window ${secs} s, $runs run(s), load average $(cut -d' ' -f1-3 /proc/loadavg)"
printf "%-14s %4s %10s %10s %8s\n" tool Hz cpu_s rss_kb user_sym
for hz in 11 99; do
	for run in $(seq 1 "$runs"); do
		# One tool at a time, each over its own window of the workload
		# (side by side they would profile, and symbolize, each other).
		loaded measure agent "$host" "$so" -d "$secs" \
		    -o profiling-frequency=$hz >"$tmp/agent.row"
		loaded measure perf sh -c "perf record -q -a -g -F $hz \
		    -o $tmp/perf.data -- sleep $secs && perf script \
		    -i $tmp/perf.data -F comm,pid,tid,ip,sym,dso 2>/dev/null \
		    >$tmp/perf.script" >"$tmp/perf.row"
		loaded measure bpftrace timeout -s INT "$((secs + 1))" \
		    bpftrace -e "profile:hz:$hz { @[comm, kstack, ustack] = \
		    count(); }" >"$tmp/bpftrace.row"
		if [ "$daemons" = 1 ]; then
			loaded daemon gprofiler-perf $hz --no-python \
			    --no-java >"$tmp/gprofiler-perf.row"
			[ "${BENCH_DAEMON:-1}" = perf ] ||
			    loaded daemon gprofiler-all $hz \
			    >"$tmp/gprofiler-all.row"
		fi

		grep -v '^#' "$tmp/agent.out" >"$tmp/agent.fold"
		row agent $hz "$tmp/agent.fold"
		grep -E '^(WARN|ERR)' "$tmp/agent.err" | sed 's/^/#   agent: /'
		fold_perf <"$tmp/perf.script" >"$tmp/perf.fold"
		row perf $hz "$tmp/perf.fold"
		row bpftrace $hz -
		for d in gprofiler-perf gprofiler-all; do
			[ "$daemons" = 1 ] && [ -f "$tmp/$d.row" ] || continue
			# .col lines: "index;container;comm;frames count"
			sed -n 's/^[^#;]*;[^;]*;//p' \
			    "$tmp/$d.d/last_profile.col" >"$tmp/$d.fold" \
			    2>/dev/null
			row $d $hz "$tmp/$d.fold"
			grep -E '^(WARN|ERR)' "$tmp/$d.err" | sed "s/^/#   $d: /"
			rm -rf "$tmp/$d.d"
		done
		echo "# load average $(cut -d' ' -f1-3 /proc/loadavg)"
	done
	for t in agent perf bpftrace gprofiler-perf gprofiler-all; do
		[ -s "$tmp/cpu.$t.$hz" ] || continue
		eval "med_$(echo $t | tr - _)=$(median "$tmp/cpu.$t.$hz")"
		printf "%-22s %4s %10s %10s\n" "median $t" $hz \
		    "$(median "$tmp/cpu.$t.$hz")" "$(median "$tmp/rss.$t.$hz")"
	done
	echo "ratios at $hz Hz (medians): agent/perf cpu" \
	    "$(ratio "$med_agent" "$med_perf")" "agent/bpftrace cpu" \
	    "$(ratio "$med_agent" "$med_bpftrace")"
	[ "$daemons" = 1 ] && echo "ratios at $hz Hz (medians):" \
	    "gprofiler-perf/perf cpu $(ratio "$med_gprofiler_perf" "$med_perf")" \
	    "gprofiler-perf/bpftrace cpu" \
	    "$(ratio "$med_gprofiler_perf" "$med_bpftrace")"
done
exit 0

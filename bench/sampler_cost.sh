#!/bin/bash
# What each sampler costs (--perf-backend bpf, bpf-compat, bpf-legacy,
# perf-events), in fp and dwarf mode: two busy threads, the daemon with the
# perf plugin only
# at 99 Hz for one cycle of SECONDS, RUNS times, alternating.  Prints the
# agent's CPU (user + sys, from getrusage: start-up included) and, for the
# BPF samplers, the program's own run time per sample in the kernel
# (kernel.bpf_stats_enabled, turned on for the run and off after: the
# kernel charges it to the sampled task, not to the agent; bpftool reads
# it).  Root, from a
# build tree; the agent takes its lock per network namespace, so run it
# under `unshare -n` beside another agent.
#
#	bench/sampler_cost.sh [BUILDDIR] [SECONDS] [RUNS]	(. 20 3)
set -u
b=$(cd "${1:-.}" && pwd)
secs=${2:-20}
runs=${3:-3}
tmp=$(mktemp -d /tmp/samplercost.XXXXXX)
old=$(sysctl -n kernel.bpf_stats_enabled)
trap 'sysctl -q kernel.bpf_stats_enabled=$old; kill $w 2>/dev/null; rm -rf "$tmp"' EXIT
sysctl -q kernel.bpf_stats_enabled=1
"$b/tests/workloads/perf_busy" -t $(((secs + 5) * runs * 6 + 10)) -j 2 \
    >/dev/null 2>&1 &
w=$!
sleep 1
printf '%-4s %-12s %-6s %10s %9s %8s %14s\n' run backend mode "agent CPU" "RSS KiB" \
    samples "BPF us/sample"
for r in $(seq "$runs"); do
	for be in bpf bpf-compat bpf-legacy perf-events; do
		for m in fp dwarf; do
			rm -rf "$tmp/o"
			GPROFILER_LOCK_NAME=samplercost$$ "$b/bench/rusage" \
			    "$tmp/ru" "$b/gprofiler" -d "$secs" -f 99 \
			    --perf-mode $m --perf-backend $be --no-python \
			    --no-java --no-ruby --no-php --no-nodejs \
			    --no-flamegraph -o "$tmp/o" \
			    --plugin-dir "$b/tests/plugindir" >/dev/null 2>&1 &
			a=$!
			sleep $((secs - 2))
			# the program's counters while it is still loaded
			us=$(bpftool prog show 2>/dev/null |
			    awk '/name on_sample/ { for (i = 1; i < NF; i++) {
				if ($i == "run_time_ns") t = $(i + 1)
				if ($i == "run_cnt") n = $(i + 1) } }
			    END { if (n > 0) printf "%.1f", t / n / 1000; else print "-" }')
			wait $a
			s=$(grep -o '"perf_samples": [0-9]*' \
			    "$tmp/o/last_profile.col" 2>/dev/null | awk '{ print $2 }')
			read -r cpu rss <"$tmp/ru"
			printf '%-4s %-12s %-6s %9ss %9s %8s %14s\n' "$r" "$be" "$m" \
			    "$cpu" "$rss" "${s:--}" "$us"
		done
	done
done

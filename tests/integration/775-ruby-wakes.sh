#!/bin/sh
# A Ruby process idle for a whole cycle, then busy for 3.5 s inside the
# next: the runtime plugin let it go while it slept (no timer reads, its
# page and frame caches freed at the cycle's end) and must read it again
# as soon as it runs: its samples still wake the agent (the process stays
# watched), so the busy spell's Ruby frames are in that cycle's profile,
# not lost until the process is next reported.  On the perf-events
# backend the plugin reads on its timer, only processes reported this
# cycle or the last: the wake must bring the report, and the reads, back.
. "$top_srcdir/tests/tap.sh"
[ "$(id -u)" -eq 0 ] || skip_all "needs root"
[ -x "$GP_BIN" ] || skip_all "no daemon"
command -v ruby >/dev/null 2>&1 || skip_all "no ruby (apt-get install ruby)"
ldd "$(command -v ruby)" | grep -q libruby ||
    skip_all "this ruby is not linked to a shared libruby"
tap_tmpdir
trap 'kill $agent $rb 2>/dev/null; rm -rf "$TMP"' EXIT
cat >"$TMP/wake.rb" <<'RB'
def spin(secs)
  stop = Process.clock_gettime(Process::CLOCK_MONOTONIC) + secs
  x = 0
  x = (x * 31 + 7) % 1000003 while Process.clock_gettime(Process::CLOCK_MONOTONIC) < stop
  x
end

def hot_warm(secs) = spin(secs)
def hot_wake(secs) = spin(secs)

t0 = Process.clock_gettime(Process::CLOCK_MONOTONIC)
at = ->(t) { d = t0 + t - Process.clock_gettime(Process::CLOCK_MONOTONIC); sleep d if d > 0 }
File.write(ARGV[0], "#{Process.pid}\n")
at.(0.5); hot_warm(4.0)
at.(13.0); hot_wake(3.5)
sleep 30
RB

# Cycles of 6 s: [0,6] the warm-up (the process is attached; 4 s of it,
# as on a loaded CI host the perf-events backend's first reads once came
# after a 1 s one and once after a 3 s one), [6,12] asleep, [12,18] busy
# from 13 to 16.5.
run() {	# label, agent options...
	label=$1
	shift
	rm -rf "$TMP/out"
	mkdir -p "$TMP/out"
	GPROFILER_LOCK_NAME="gptest-rbwake-$$" "$GP_BIN" --plugin-dir \
	    "$GP_PLUGIN_DIR" -o "$TMP/out" -d 6 -c -f 99 --no-flamegraph -v \
	    "$@" >"$TMP/out/log" 2>&1 &
	agent=$!
	wait_line "$TMP/out/log" "sampling Ruby" 10
	ok $? "$label: the agent's Ruby plugin started"
	ruby "$TMP/wake.rb" "$TMP/ready" >/dev/null 2>"$TMP/rb.err" &
	rb=$!
	sleep 20
	kill -TERM "$agent"
	wait "$agent"
	ok $? "$label: the agent stopped on SIGTERM (exit 0)"
	kill "$rb" 2>/dev/null
	wait "$rb" 2>/dev/null
	rbpid=$rb
	agent= rb=
	n=$(ls "$TMP"/out/profile_*.col 2>/dev/null | wc -l)
	[ "$n" -ge 3 ]
	ok $? "$label: three cycles or more written ($n)"
	# Under ASan beside the rest of the suite, the plugin's reads lag
	# by seconds (the CI saw none in a run, 163 in the next): the
	# counts are judged in the plain build, which the suite also runs.
	if asan_build; then
		skip "$label: Ruby frames before and after the sleeping cycle" \
		    "ASan build"
		return
	fi
	warm=$(cat "$TMP"/out/profile_*.col 2>/dev/null |
	    grep "hot_warm ($TMP/wake.rb:[0-9]*)_\[rb\]" |
	    awk '{ s += $NF } END { print s + 0 }')
	[ "$warm" -ge 1 ]
	ok $? "$label: the warm-up's Ruby frames ($warm samples in hot_warm)"
	for f in "$TMP"/out/profile_*.col; do
		c=$(grep "hot_wake ($TMP/wake.rb:[0-9]*)_\[rb\]" "$f" |
		    awk '{ s += $NF } END { print s + 0 }')
		diag "$label: $(basename "$f"): $c samples in hot_wake"
	done
	wake=$(cat "$TMP"/out/profile_*.col 2>/dev/null |
	    grep "hot_wake ($TMP/wake.rb:[0-9]*)_\[rb\]" |
	    awk '{ s += $NF } END { print s + 0 }')
	[ "$wake" -ge "$want" ]
	r=$?
	ok $r "$label: the busy spell's Ruby frames after a sleeping cycle ($wake samples in hot_wake)"
	if [ $r -ne 0 ]; then
		sed 's/^/# /' "$TMP/rb.err" | head -5
		grep "pid $rbpid\b" "$TMP/out/log" | tail -10 | sed 's/^/# /'
		grep "ruby: snapshot" "$TMP/out/log" | sed 's/^/# /'
	fi
}
# A broken wake-up gives none; 3.5 s at 99 Hz are some 350 samples, of
# which a loaded host leaves fewer (44 beside the ASan suite, 248 alone).
want=10
run "BPF sampler"
run "perf events" --perf-backend perf-events
done_testing

#!/bin/sh
# Each Ruby thread's samples carry its own stack.  Two busy threads of one
# process (tests/workloads/ruby_nogvl.rb): "spin" runs Ruby code (holding
# the GVL), "deflate" compresses in zlib with the GVL let go, both at once.
# The perf plugin's BPF program walks the sampled thread's own execution
# context (ruby_current_ec, in its TLS): c_deflate's share of the Ruby
# samples must be that thread's share of the process's CPU time (read from
# /proc over the same window), within 10 points, with zlib's deflate named
# under it.  A reader of the VM's running context (the GVL holder's) would
# give the deflating thread's samples to ruby_spin: that run's share, with
# --perf-backend perf-events (the timer's read), is printed beside it.
. "$top_srcdir/tests/tap.sh"
[ "$(id -u)" -eq 0 ] || skip_all "needs root"
[ -x "$GP_BIN" ] || skip_all "no daemon"
command -v ruby >/dev/null 2>&1 || skip_all "no ruby (apt-get install ruby)"
ruby -e 'require "zlib"' 2>/dev/null || skip_all "ruby has no zlib"
tap_tmpdir
wl=$(realpath "$top_srcdir/tests/workloads/ruby_nogvl.rb")

# thread_cpu PID NAME: that thread's CPU time so far, in clock ticks.
thread_cpu() {
	for t in /proc/"$1"/task/*; do
		[ "$(cat "$t/comm" 2>/dev/null)" = "$2" ] || continue
		# utime and stime: fields 14 and 15, after the (comm)
		sed 's/^.*) //' "$t/stat" | awk '{print $12 + $13}'
		return
	done
	echo 0
}

# run OUT BACKEND: one 6 s cycle at 199 Hz of a fresh workload; prints
# "deflate_ticks spin_ticks" of the window.
run() {
	out=$1; shift
	mkdir -p "$out"
	ruby "$wl" 30 "$out/ready" >/dev/null 2>&1 &
	pid=$!
	i=0
	while [ ! -s "$out/ready" ] && [ $i -lt 100 ]; do
		sleep 0.1; i=$((i + 1))
	done
	sleep 0.5	# both threads named and busy
	d0=$(thread_cpu $pid deflate) s0=$(thread_cpu $pid spin)
	GPROFILER_LOCK_NAME="gptest-rbthr-$$" "$GP_BIN" --plugin-dir \
	    "$GP_PLUGIN_DIR" -o "$out" -d 6 -f 199 --no-flamegraph -v \
	    --pids "$pid" "$@" >"$out/log" 2>&1
	rc=$?
	d1=$(thread_cpu $pid deflate) s1=$(thread_cpu $pid spin)
	kill $pid 2>/dev/null
	wait $pid 2>/dev/null
	echo "$rc $((d1 - d0)) $((s1 - s0))" >"$out/cpu"
}

# shares DIR: "deflate_samples spin_samples deflate_named" of its profile.
shares() {
	tail -n +2 "$1"/profile_*.col 2>/dev/null | awk '
	    { n = $NF }
	    /(^|;)c_deflate \(/ { d += n; if (/;deflate \[c function\]/) z += n }
	    /(^|;)ruby_spin \(/ { s += n }
	    END { printf "%d %d %d\n", d, s, z }'
}

trap 'kill $pid 2>/dev/null; rm -rf "$TMP"' EXIT
run "$TMP/walk"
read -r rc dt st <"$TMP/walk/cpu"
grep -q "Ruby frames walked in the system profiler's samples" \
    "$TMP/walk/log" || skip_all "no walk here (a kernel before 5.17, or \
perf events): $(grep -m1 'sampling .* CPUs' "$TMP/walk/log")"
[ "$rc" -eq 0 ]
ok $? "the agent ran one cycle (exit $rc)"
walked=$(sed -n 's/.*Ruby stacks, \([0-9]*\) samples ([0-9]* failed, \([0-9]*\) walked.*/\1 \2/p' \
    "$TMP/walk/log" | tail -1)
diag "Ruby samples, walked: $walked"
set -- $walked
[ "${1:-0}" -gt 0 ] && [ "${2:-0}" -ge $(( ${1:-0} * 9 / 10 )) ]
ok $? "nine in ten Ruby samples walked in the BPF program ($walked)"
read -r ds ss zs <<EOF2
$(shares "$TMP/walk")
EOF2
diag "thread CPU in the window: deflate $dt, spin $st ticks; samples: c_deflate $ds (zlib's deflate under it: $zs), ruby_spin $ss"
[ "$dt" -gt 50 ] && [ "$st" -gt 50 ]
ok $? "both threads ran (deflate $dt, spin $st ticks)"
"$PYTHON3" -c "
import sys
dt, st, ds, ss = $dt, $st, $ds, $ss
want = 100.0 * dt / (dt + st)
got = 100.0 * ds / max(1, ds + ss)
print('# c_deflate %.1f%% of the samples, its thread %.1f%% of the CPU' % (got, want))
sys.exit(0 if ds + ss >= 200 and abs(got - want) <= 10 else 1)"
ok $? "c_deflate's share of the samples is its thread's share of the CPU"
[ "$zs" -ge $((ds * 7 / 10)) ]
ok $? "zlib's deflate named under c_deflate ($zs of $ds)"

# Beside it, the timer's read of the GVL holder (not checked).
run "$TMP/timer" --perf-backend perf-events
read -r rc dt st <"$TMP/timer/cpu"
read -r ds ss zs <<EOF2
$(shares "$TMP/timer")
EOF2
diag "--perf-backend perf-events (the timer reads the GVL holder's stack): c_deflate $ds, ruby_spin $ss samples; thread CPU deflate $dt, spin $st ticks"
done_testing

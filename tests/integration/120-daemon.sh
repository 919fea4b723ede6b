#!/bin/sh
# The daemon's behaviour as a distro service: one cycle or continuous
# cycles, SIGTERM/SIGINT, SIGHUP reload (good and bad), the single-instance
# lock, the pid file, start-up errors (exit statuses, nothing half-written).
. "$top_srcdir/tests/tap.sh"
[ "$(id -u)" -eq 0 ] || skip_all "needs root"
tap_tmpdir
# Cheap cycles: no system profiler, no runtimes; the loader still runs.
light="--perf-mode disabled --no-python --no-java"
gp() { "$GP_BIN" --plugin-dir "$GP_PLUGIN_DIR" $light "$@"; }
# In the background, from this shell, so that $! is the agent's pid.
gp_bg() { "$GP_BIN" --plugin-dir "$GP_PLUGIN_DIR" $light "$@" & }

# wait_for COND-COMMAND... : up to 15 s
wait_for() {
	i=0
	while [ $i -lt 150 ]; do "$@" && return 0; sleep 0.1; i=$((i + 1)); done
	return 1
}
count_cols() { ls "$1"/profile_*.col 2>/dev/null | wc -l; }
has_cols() { [ "$(count_cols "$1")" -ge "$2" ]; }

# One cycle without -c.
gp -o "$TMP/one" -d 1 >"$TMP/one.log" 2>&1
ok $? "without -c: one cycle, exit 0"
[ "$(count_cols "$TMP/one")" -eq 1 ]; ok $? "exactly one profile"
[ -L "$TMP/one/last_profile.col" ] && [ -e "$TMP/one/last_profile.col" ]; ok $? "last_profile.col links to it"
grep -q "wrote $TMP/one/profile_" "$TMP/one.log"; ok $? "it says where the files are"
head -c 2 "$TMP/one/last_profile.col" | grep -q '^# '; ok $? "the .col starts with the header line"
ls "$TMP/one" | grep -q '\.tmp'; ok $(( ! $? )) "no temporary files left"

# The cycle's window: the end is taken after the system profiler answers.
window_ok() {
	head -1 "$1" | cut -c3- | "${PYTHON3:-python3}" -c '
import json, sys
h = json.load(sys.stdin)
sys.exit(0 if h["start_time"] < h["end_time"] else 1)'
}
window_ok "$TMP/one/last_profile.col"; ok $? "end_time > start_time (cpu mode)"
"$GP_BIN" --plugin-dir "$GP_PLUGIN_DIR" --mode gpu \
    --iaprof-path "$top_builddir/tests/fakes/fake_iaprof" -o "$TMP/gpu" -d 1 \
    >"$TMP/gpu.log" 2>&1
ok $? "a gpu-mode cycle with the (fake) iaprof"
window_ok "$TMP/gpu/last_profile.col"; ok $? "end_time > start_time (gpu mode)"

# Continuous, pid file, SIGTERM.
gp_bg -c -o "$TMP/cont" -d 1 --pid-file "$TMP/gp.pid" >"$TMP/cont.log" 2>&1
pid=$!
wait_for has_cols "$TMP/cont" 2; ok $? "-c runs cycles back to back"
[ "$(cat "$TMP/gp.pid" 2>/dev/null)" = "$pid" ]; ok $? "the pid file holds the agent's pid"

# The single-instance lock.
gp -o "$TMP/second" -d 1 >"$TMP/second.log" 2>&1
st=$?
ok $(( st == 1 ? 0 : 1 )) "a second agent exits 1"
grep -q "another gprofiler is already running" "$TMP/second.log"; ok $? "with a clear message"

kill -TERM $pid
wait $pid
ok $? "SIGTERM: exit 0"
[ ! -e "$TMP/gp.pid" ]; ok $? "the pid file is removed"
grep -q "SIGTERM: stopping" "$TMP/cont.log"; ok $? "the stop is logged"
ps -o stat= --ppid $pid 2>/dev/null | grep -q Z; ok $(( ! $? )) "no zombie children"

# SIGHUP: a good new config applies, a bad one is refused and the old kept.
conf="$TMP/gp.conf"
printf 'continuous = true\nprofiling-duration = 1\noutput-dir = %s\n' "$TMP/hup1" >"$conf"
chmod 600 "$conf"
gp_bg --config "$conf" >"$TMP/hup.log" 2>&1
pid=$!
wait_for has_cols "$TMP/hup1" 1; ok $? "started from the config file"
printf 'continuous = true\nprofiling-duration = 1\noutput-dir = %s\n' "$TMP/hup2" >"$conf"
kill -HUP $pid
wait_for has_cols "$TMP/hup2" 1; ok $? "SIGHUP: the new output dir is used"
grep -q "configuration reloaded" "$TMP/hup.log"; ok $? "the reload is logged"
printf 'continuous = true\nprofiling-duration = banana\n' >"$conf"
kill -HUP $pid
wait_for grep -q "keeping the previous configuration" "$TMP/hup.log"; ok $? "a bad config on SIGHUP is refused"
grep -q "gp.conf:2: invalid value \"banana\"" "$TMP/hup.log"; ok $? "naming file:line"
n=$(count_cols "$TMP/hup2")
wait_for has_cols "$TMP/hup2" $((n + 1)); ok $? "and the old config keeps running"
kill -INT $pid
wait $pid
ok $? "SIGINT: exit 0"

# Start-up errors.
gp -o "$TMP/x" --profiling-duration 0 >"$TMP/e1" 2>&1
ok $(( $? == 2 ? 0 : 1 )) "-d 0 is a usage error (exit 2)"
gp -o "$TMP/x" --frobnicate >"$TMP/e2" 2>&1
ok $(( $? == 2 ? 0 : 1 )) "an unknown option is a usage error"
grep -q 'unknown option "frobnicate"' "$TMP/e2"; ok $? "naming it"
gp >"$TMP/e3" 2>&1
ok $(( $? == 2 ? 0 : 1 )) "no output method is a usage error"
printf 'profiling-duration 5\n' >"$TMP/bad.conf"; chmod 600 "$TMP/bad.conf"
gp --config "$TMP/bad.conf" -o "$TMP/x" >"$TMP/e4" 2>&1
ok $(( $? == 2 ? 0 : 1 )) "a malformed config line exits 2"
grep -q 'bad.conf:1: expected "key = value"' "$TMP/e4"; ok $? "naming file:line"
chmod 666 "$TMP/bad.conf"
gp --config "$TMP/bad.conf" -o "$TMP/x" >"$TMP/e5" 2>&1
grep -q "must be owned by root and not writable by group or others" "$TMP/e5"; ok $? "a world-writable config file is refused"
printf 'token = secret-xyz\n' >"$TMP/tok.conf"; chmod 644 "$TMP/tok.conf"
gp --config "$TMP/tok.conf" -o "$TMP/x" >"$TMP/e6" 2>&1
grep -q "a secret (token) in a world-readable file" "$TMP/e6"; ok $? "a token in a world-readable config is refused"
grep -q "secret-xyz" "$TMP/e6"; ok $(( ! $? )) "and not echoed"
touch "$TMP/afile"
gp -o "$TMP/afile/out" -d 1 >"$TMP/e7" 2>&1
ok $(( $? == 1 ? 0 : 1 )) "an unusable output dir fails at start (exit 1)"
grep -q "output directory $TMP/afile/out" "$TMP/e7"; ok $? "naming the directory"
GPROFILER_PROFILING_DURATION=abc gp -o "$TMP/x" >"$TMP/e8" 2>&1
grep -q "GPROFILER_PROFILING_DURATION: invalid value" "$TMP/e8"; ok $? "a bad environment value names the variable"
gp -o "$TMP/x" -n >"$TMP/e9" 2>&1
grep -q "configuration OK" "$TMP/e9"; ok $? "-n checks the configuration"
gp --version | grep -q "^gprofiler [0-9]*\.[0-9]*\.[0-9]*"; ok $? "--version"
done_testing

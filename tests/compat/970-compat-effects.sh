#!/bin/sh
# gProfiler flags that do here what they do in gProfiler, through the real
# daemon: --skip-system-profilers-above keeps perf unstarted on a host with
# more processes (and only then), --log-usage logs the agent's usage every
# cycle, --diagnostics logs its internals at start.
. "$top_srcdir/tests/tap.sh"
[ "$(id -u)" -eq 0 ] || skip_all "needs root"
tap_tmpdir
gp() {
	"$GP_BIN" --plugin-dir "$GP_PLUGIN_DIR" --no-python --no-java \
	    -o "$TMP/out" --pid-file '' "$@" >"$TMP/log" 2>&1
	rc=$?
}
nprocs=$(ls /proc | grep -c '^[0-9]')

# More processes than the threshold: no perf, runtime profilers only.
gp -d 1 --skip-system-profilers-above 1
[ "$rc" -eq 0 ]; ok $? "--skip-system-profilers-above 1: the cycle runs ($nprocs processes here)"
grep -q "skipping the system profiler (perf): [0-9]* processes exceed --skip-system-profilers-above 1" "$TMP/log"
ok $? "... and says perf is skipped, with the count"
grep -q "no system profiler in mode cpu" "$TMP/log"
ok $? "... and perf was not started"
# Fewer: perf runs as usual.
gp -d 1 --skip-system-profilers-above 100000000
[ "$rc" -eq 0 ] && ! grep -q "skipping the system profiler" "$TMP/log" &&
    ! grep -q "no system profiler in mode cpu" "$TMP/log"
ok $? "--skip-system-profilers-above above the process count: perf runs"
# gProfiler refuses 0 ("invalid positive integer value").
gp -n --skip-system-profilers-above 0
[ "$rc" -eq 2 ]; ok $? "--skip-system-profilers-above 0 refused as in gProfiler"

# --insert-dso-name: "sym (dso)" on resolved native frames (gProfiler's
# perf.py), and not without it.
WL=$top_builddir/tests/workloads
if [ -x "$WL/perf_busy" ] && [ -d /sys/kernel/btf ]; then
	"$WL/perf_busy" -t 120 &
	busy=$!
	sleep 0.5
	gp -d 2 --pids $busy --insert-dso-name --no-flamegraph
	grep -h "perf_busy" "$TMP"/out/profile_*.col >"$TMP/with" 2>/dev/null
	rm -f "$TMP"/out/profile_* "$TMP"/out/last_*
	gp -d 2 --pids $busy --no-flamegraph
	grep -h "perf_busy" "$TMP"/out/profile_*.col >"$TMP/without" 2>/dev/null
	kill $busy 2>/dev/null
	wait $busy 2>/dev/null
	grep -q "hot_fifty (/[^;]*/perf_busy)" "$TMP/with"
	ok $? "--insert-dso-name: hot_fifty (<path>/perf_busy)"
	grep -q ";busy_round (/[^;]*perf_busy);" "$TMP/with"
	ok $? "... on every resolved frame, callers too"
	grep -q "hot_fifty" "$TMP/without" && ! grep -q "hot_fifty (" "$TMP/without"
	ok $? "without it: hot_fifty alone"
else
	skip "--insert-dso-name" "no perf_busy workload or no BTF"
	skip "... callers" "no perf_busy workload or no BTF"
	skip "without it" "no perf_busy workload or no BTF"
fi

# --external-metadata: the static section in the profile's metadata; a
# missing or stale file stops the start (exit 1), as in gProfiler.
echo '{"static": {"team": "sre", "tier": 2}, "application": {}}' >"$TMP/ext.json"
rm -f "$TMP"/out/profile_*
gp -d 1 --perf-mode disabled --external-metadata "$TMP/ext.json"
[ "$rc" -eq 0 ] && head -1 "$TMP"/out/last_profile.col | cut -c3- |
    "${PYTHON3:-python3}" -c '
import json, sys
md = json.load(sys.stdin)["metadata"]
sys.exit(0 if md.get("external_metadata") == {"team": "sre", "tier": 2} else 1)'
ok $? "--external-metadata: metadata.external_metadata is the static section"
gp -d 1 --perf-mode disabled --external-metadata "$TMP/none.json"
[ "$rc" -eq 1 ] && grep -q "External metadata file $TMP/none.json does not exist" "$TMP/log"
ok $? "... a missing file: exit 1, named"
touch -d '10 minutes ago' "$TMP/ext.json"
gp -d 1 --perf-mode disabled --external-metadata "$TMP/ext.json"
[ "$rc" -eq 1 ] && grep -q "is stale" "$TMP/log"
ok $? "... a file not updated for 5 minutes: exit 1, stale"

# --log-usage: one usage line per cycle.
"$GP_BIN" --plugin-dir "$GP_PLUGIN_DIR" --no-python --no-java \
    -o "$TMP/out" --pid-file '' -c -d 1 --perf-mode disabled --log-usage \
    >"$TMP/log" 2>&1 &
pid=$!
sleep 4
kill -TERM $pid
wait $pid
n=$(grep -c "usage: CPU [0-9.]* s over the last [0-9]* s" "$TMP/log")
[ "$n" -ge 2 ]; ok $? "--log-usage: a usage line every cycle ($n in 4 s)"
grep -q "memory [0-9.]* MiB resident" "$TMP/log"; ok $? "... with the memory in use"
! grep -q "accepted for gProfiler compatibility" "$TMP/log"
ok $? "... and it is not named as inert"

# --diagnostics: a line at start.
gp -d 1 --perf-mode disabled --diagnostics
grep -q "diagnostics: pid [0-9]*, memory [0-9.]* MiB resident.*open files" "$TMP/log"
ok $? "--diagnostics: the agent's internals at start"
done_testing

#!/bin/sh
# One run owner for every entry point (issue 29): an agent driven by
# heartbeat commands runs, for each command, what a fresh start with the
# equivalent flags runs: the same plugins and the same effective options
# (run_arguments) in its uploaded profile.  One row per combined_config
# key of core/studio/command_config.c's table, and back to the defaults
# after commands that reloaded the plugins (enable_perfspect, perf off):
# nodejs went missing there once.  The driver is supervisor_table.py;
# time is compressed (1 s heartbeats, 2-3 s cycles).
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/integration/studio_lib.sh"
studio_init
[ "$(id -u)" -eq 0 ] || skip_all "needs root (perf)"
studio_server srv

sleep 100000 &
TARGET=$!
studio_pids="$studio_pids $TARGET"

GPROFILER_LOCK_NAME="gptest-sv-$$-h" "$GP_BIN" --plugin-dir "$GP_PLUGIN_DIR" \
    --enable-heartbeat-server --heartbeat-interval 1 --api-server "$SRV_URL" \
    -u --token "$STUDIO_TOKEN" --service-name "$STUDIO_SVC" \
    --server-host "$SRV_URL" --spool-dir "$TMP/spool" \
    --state-dir "$TMP/state" --perfspect-path \
    "$top_srcdir/tests/fakes/fake_perfspect" >"$TMP/agent.log" 2>&1 &
GP_PID=$!
studio_pids="$studio_pids $GP_PID"
wait_for 30 srv_heartbeats_ge 1
ok $? "the agent sends heartbeats"
HOST=$(srv_agent_hostname)

"$PY" "$top_srcdir/tests/integration/supervisor_table.py" "$SRV_URL" \
    "$STUDIO_SVC" "$HOST" "$STUDIO_TOKEN" "$GP_BIN" "$GP_PLUGIN_DIR" \
    "$TMP/agent.log" "$TMP" "$TARGET" \
    "$top_srcdir/tests/fakes/fake_perfspect" \
    >"$TMP/table.out" 2>"$TMP/table.err"
ok $? "the table ran to its end"
while read -r tag rc what; do
	[ "$tag" = R ] && ok "$rc" "$what"
done <"$TMP/table.out"
[ -s "$TMP/table.err" ] && sed 's/^/# /' "$TMP/table.err"

! grep -q "AddressSanitizer\|runtime error:" "$TMP/agent.log" "$TMP"/fresh-*.log
ok $? "no sanitizer report"
gp_stop
ok $? "the agent stops on SIGTERM"
done_testing

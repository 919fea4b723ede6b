#!/bin/sh
# Every heartbeat command the Studio UI can send (each combined_config key,
# each profiler_configs value, alone and as the UI combines them, and bad
# ones), in sequence on ONE running agent: start -> change plugins ->
# ad-hoc -> stop -> start.  For each: the agent keeps running, exactly one
# completion with the right status, and the next cycle's profile shows the
# new settings (issue 11).  Time is compressed (1 s heartbeats, 2 s
# cycles); the fake Studio keeps its realistic latency.  The same table at
# the reference agent's timing: 550-studio-command-realtime.sh.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/integration/studio_lib.sh"
studio_init
[ "$(id -u)" -eq 0 ] || skip_all "needs root (perf)"
studio_server srv

# Installed: the cpu plugins only, so that an allocation command has no
# plugin to serve it.
mkdir "$TMP/plugins"
for m in "$GP_PLUGIN_DIR"/*.plugin; do
	modes=$(sed -n 's/^modes *= *//p' "$m")
	[ "$modes" = cpu ] || continue
	cp "$m" "${m%.plugin}.so" "$TMP/plugins/"
done
sleep 100000 &
TARGET=$!
studio_pids="$studio_pids $TARGET"
# Kernel frames in every cycle, whatever else the host does (the rows
# check that perf runs by them): a third of a CPU for 2 s cycles, 5% for
# the real-time table's 60 s ones.
"$PY" "$top_srcdir/tests/workloads/kernel_busy.py" \
    "$( [ "${TABLE_DURATION:-2}" -ge 30 ] && echo 0.05 || echo 0.33)" &
studio_pids="$studio_pids $!"

"$GP_BIN" --plugin-dir "$TMP/plugins" --enable-heartbeat-server \
    --heartbeat-interval "${HB_INTERVAL:-1}" --api-server "$SRV_URL" -u \
    --token "$STUDIO_TOKEN" --service-name "$STUDIO_SVC" \
    --server-host "$SRV_URL" --spool-dir "$TMP/spool" \
    --state-dir "$TMP/state" --perfspect-path \
    "$top_srcdir/tests/fakes/fake_perfspect" >"$TMP/agent.log" 2>&1 &
GP_PID=$!
studio_pids="$studio_pids $GP_PID"
wait_for 30 srv_heartbeats_ge 1
ok $? "the agent sends heartbeats"
HOST=$(srv_agent_hostname)

"$PY" "$top_srcdir/tests/integration/command_table.py" "$SRV_URL" \
    "$STUDIO_SVC" "$HOST" "$GP_PID" "${TABLE_DURATION:-2}" \
    "${TABLE_TIMEOUT:-15}" "${TABLE:-compressed}" "$TARGET" \
    >"$TMP/table.out" 2>"$TMP/table.err"
ok $? "the table ran to its end"
while read -r tag rc what; do
	[ "$tag" = R ] && ok "$rc" "$what"
done <"$TMP/table.out"
[ -s "$TMP/table.err" ] && sed 's/^/# /' "$TMP/table.err"

! grep -q "AddressSanitizer\|runtime error:" "$TMP/agent.log"
ok $? "no sanitizer report"
gp_stop
ok $? "the agent stops on SIGTERM"
done_testing

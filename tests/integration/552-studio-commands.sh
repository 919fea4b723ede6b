#!/bin/sh
# Heartbeat commands across restarts and bad commands: a restarted agent
# (same --state-dir) does not replay the command the backend keeps
# re-sending, while one without that state does (the control); a command
# with a bad combined_config or an unknown type is reported `failed` with a
# message and the agent keeps running.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/integration/studio_lib.sh"
studio_init
studio_server srv

hb_opts="--enable-heartbeat-server --heartbeat-interval 1 --api-server $SRV_URL
    -u --token $STUDIO_TOKEN --service-name $STUDIO_SVC --server-host $SRV_URL
    $gp_cheap --spool-dir $TMP/spool"

gp_start a $hb_opts --state-dir "$TMP/state"
wait_for 10 srv_heartbeats_ge 1
HOST=$(srv_agent_hostname)
c1=$(srv_request '{"service_name": "'"$STUDIO_SVC"'", "request_type": "start",
    "continuous": true, "duration": 1, "target_hosts": {"'"$HOST"'": null}}')
wait_for 10 srv_completed "$c1" && wait_for 10 srv_nprofiles_ge 1
ok $? "run A executes the start command and uploads"
gp_stop
ok $? "run A stops"
[ -f "$TMP/state/state.json" ] && grep -q "$c1" "$TMP/state/state.json" &&
    [ "$(stat -c %a "$TMP/state/state.json")" = 600 ]
ok $? "the executed id is persisted in an owner-only state file"

# B: same state directory.  The backend re-sends c1 on every heartbeat.
nhb=$(srv_py 'print(len(get("/_fake/heartbeats")))')
nprof=$(srv_nprofiles)
gp_start b $hb_opts --state-dir "$TMP/state"
B_PID=$GP_PID
wait_for 10 srv_heartbeats_ge $((nhb + 3))
sleep 1.5
! grep -q "new [a-z]* command" "$TMP/b.log" &&
    ! grep -q "profiling run:" "$TMP/b.log"
ok $? "restarted with its state: the old command is not replayed"
[ "$(srv_nprofiles)" -eq "$nprof" ]
ok $? "and nothing is uploaded"
srv_py 'sys.exit(0 if len(get("/_fake/completions")) == 1 else 1)'
ok $? "and no second completion is reported"
gp_stop

# C: no state (control): the re-sent command is executed.
gp_start c $hb_opts --state-dir "$TMP/state-c"
wait_for 10 grep -q "new start command $c1" "$TMP/c.log"
ok $? "control: without the state file the re-sent command is executed"
wait_for 10 srv_nprofiles_ge $((nprof + 1))
ok $? "control: and its run uploads"

# Bad commands, queued as the backend would deliver them.
bad=$(srv_post /_fake/command '{"hostname": "'"$HOST"'", "service_name": "'"$STUDIO_SVC"'",
    "command_type": "start", "combined_config": {"command_type": "start",
    "continuous": true, "duration": "soon", "frequency": 11}}' |
    srv_py 'print(json.load(sys.stdin)["command_id"])')
wait_for 10 srv_completed "$bad"
srv_py '
c = [c for c in get("/_fake/completions") if c["command_id"] == sys.argv[1]][0]
print("# %s: %s" % (c["status"], c["error_message"]))
sys.exit(0 if c["status"] == "failed" and c["accepted"] and
    "duration" in (c["error_message"] or "") else 1)
' "$bad"
ok $? "a bad combined_config value: \`failed\` naming the key"

unk=$(srv_post /_fake/command '{"hostname": "'"$HOST"'", "service_name": "'"$STUDIO_SVC"'",
    "command_type": "restart", "combined_config": {}}' |
    srv_py 'print(json.load(sys.stdin)["command_id"])')
wait_for 10 srv_completed "$unk"
srv_py '
c = [c for c in get("/_fake/completions") if c["command_id"] == sys.argv[1]][0]
sys.exit(0 if c["status"] == "failed" and
    c["error_message"] == "Unknown command type: restart" else 1)
' "$unk"
ok $? "an unknown command type: \`failed\`, \"Unknown command type: restart\""

mode=$(srv_post /_fake/command '{"hostname": "'"$HOST"'", "service_name": "'"$STUDIO_SVC"'",
    "command_type": "start", "combined_config": {"continuous": false,
    "duration": 1, "profiling_mode": "quantum", "pids": "1, 2"}}' |
    srv_py 'print(json.load(sys.stdin)["command_id"])')
wait_for 10 srv_completed "$mode"
srv_py '
c = [c for c in get("/_fake/completions") if c["command_id"] == sys.argv[1]][0]
print("# %s: %s" % (c["status"], c["error_message"]))
sys.exit(0 if c["status"] == "failed" and "quantum" in (c["error_message"] or "") else 1)
' "$mode"
ok $? "an unknown profiling_mode: \`failed\` naming the value"

n=$(srv_nprofiles)
wait_for 10 srv_nprofiles_ge $((n + 1))
ok $? "the continuous run goes on after the bad commands"
kill -0 "$GP_PID" 2>/dev/null
ok $? "the agent is still running"

# An ad-hoc run still going at SIGTERM: its completion (failed, the agent
# is shutting down) still reaches the backend before the agent exits.
long=$(srv_post /_fake/command '{"hostname": "'"$HOST"'", "service_name": "'"$STUDIO_SVC"'",
    "command_type": "start", "combined_config": {"continuous": false,
    "duration": 60, "profiling_mode": "cpu"}}' |
    srv_py 'print(json.load(sys.stdin)["command_id"])')
wait_for 10 grep -q "profiling run: mode cpu, 60 s cycles, one cycle" "$TMP/c.log"
ok $? "a long ad-hoc run started"
gp_stop
ok $? "it stops on SIGTERM"
srv_py '
c = [c for c in get("/_fake/completions") if c["command_id"] == sys.argv[1]]
print("# %s" % c)
sys.exit(0 if len(c) == 1 and c[0]["status"] == "failed" and
    "shutting down" in (c[0]["error_message"] or "") else 1)
' "$long"
ok $? "its completion is delivered at exit: failed, the agent is shutting down"

# The same, the backend never answering completions: the agent still
# exits in bounded time (the uploads' flush, then the last requests'
# drain), counts what went unanswered and holds nothing of it (under ASan
# a leak fails its exit status).
srv_post /_fake/fail '{"mode": "hang", "paths":
    ["/api/metrics/command_completion"]}' >/dev/null
gp_start d $hb_opts --state-dir "$TMP/state-d"
hang=$(srv_post /_fake/command '{"hostname": "'"$HOST"'", "service_name": "'"$STUDIO_SVC"'",
    "command_type": "start", "combined_config": {"continuous": false,
    "duration": 60, "profiling_mode": "cpu"}}' |
    srv_py 'print(json.load(sys.stdin)["command_id"])')
wait_for 10 grep -q "profiling run: mode cpu, 60 s cycles, one cycle" "$TMP/d.log"
ok $? "a long ad-hoc run started, completions hanging"
t0=$(date +%s)
kill -TERM "$GP_PID"
wait "$GP_PID"
rc=$?
t=$(($(date +%s) - t0))
[ "$rc" -eq 0 ] && [ "$t" -le 12 ]
ok $? "it exits 0 on SIGTERM in bounded time (exit $rc, $t s)"
# The completion, and perhaps a heartbeat in flight at that moment.
grep "request(s) to the backend not answered" "$TMP/d.log" | sed 's/^/# /'
grep -q "exiting with [1-9][0-9]* request(s) to the backend not answered" \
    "$TMP/d.log"
ok $? "the unanswered requests are counted"
srv_post /_fake/clear '{}' >/dev/null

done_testing

#!/bin/sh
# Garbage, huge and wrong-typed JSON from the heartbeat endpoint (and
# errors): each is logged, nothing crashes, the running profiling goes on,
# and the next good command is executed.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/integration/studio_lib.sh"
studio_init
studio_server srv

gp_start gp --enable-heartbeat-server --heartbeat-interval 1 \
    --api-server "$SRV_URL" -u --token "$STUDIO_TOKEN" \
    --service-name "$STUDIO_SVC" --server-host "$SRV_URL" $gp_cheap \
    --spool-dir "$TMP/spool" --state-dir "$TMP/state" -v
wait_for 10 srv_heartbeats_ge 1
HOST=$(srv_agent_hostname)
c1=$(srv_request '{"service_name": "'"$STUDIO_SVC"'", "request_type": "start",
    "continuous": true, "duration": 1, "target_hosts": {"'"$HOST"'": null}}')
wait_for 10 srv_completed "$c1"
ok $? "a continuous run is going"

# hb_fails_gt N: more than N heartbeats got an injected failure.
hb_fails() {
	srv_py 'print(sum(1 for r in get("/_fake/requests")
    if r["path"] == "/api/metrics/heartbeat" and "failed" in r))'
}
hb_fails_gt() {
	[ "$(hb_fails)" -gt "$1" ]
}

# bad DESC SWITCH-JSON: one heartbeat gets the bad answer.
bad() {
	_before=$(hb_fails)
	srv_post /_fake/fail "$2" >/dev/null
	wait_for 10 hb_fails_gt "$_before"
	_r1=$?
	sleep 0.3
	kill -0 "$GP_PID" 2>/dev/null
	[ $_r1 -eq 0 ] && [ $? -eq 0 ]
	ok $? "$1: answered, the agent is alive"
}

sw() {	# sw MODE [extra json]: a one-shot switch on the heartbeat path
	echo '{"mode": "'"$1"'", "count": 1, "paths": ["/api/metrics/heartbeat"]'"$2"'}'
}
raw() {	# raw BODY-AS-JSON-STRING
	sw raw ', "body": '"$1"
}

bad "binary garbage" "$(sw garbage)"
bad "HTTP 500" "$(sw 500)"
bad "8 MiB of valid JSON" "$(sw huge ', "size": 8388608')"
bad "a JSON array" "$(raw '"[1, 2, 3]"')"
bad "truncated JSON" "$(raw '"{\"success\": true, \"profiling_command\": {\"comm"')"
bad "success as a string" "$(raw '"{\"success\": \"yes\", \"profiling_command\": null, \"command_id\": null}"')"
bad "profiling_command as a string" "$(raw '"{\"success\": true, \"profiling_command\": \"start\", \"command_id\": \"x\"}"')"
bad "command_type a number, command_id a number" "$(raw '"{\"success\": true, \"profiling_command\": {\"command_type\": 7}, \"command_id\": 5}"')"
# Malformed commands that do carry an id: reported `failed` (once, although
# the backend would re-send them).
LISTCFG=0efb3650-ab14-47a5-9c0f-e7a23e7faf8b
NUMTYPE=2a1f3650-ab14-47a5-9c0f-e7a23e7faf8b
bad "combined_config a list" "$(sw raw ', "count": 2, "body": "{\"success\": true, \"profiling_command\": {\"command_type\": \"start\", \"combined_config\": [1]}, \"command_id\": \"'$LISTCFG'\"}"')"
bad "command_type a number (with an id)" "$(raw '"{\"success\": true, \"profiling_command\": {\"command_type\": 7}, \"command_id\": \"'$NUMTYPE'\"}"')"
bad "a 100000-deep nesting" "$(raw "\"$(python3 -c 'print("[" * 100000)')\"")"
bad "a 10 kB command_id" "$(raw "\"{\\\"success\\\": true, \\\"profiling_command\\\": {\\\"command_type\\\": \\\"stop\\\"}, \\\"command_id\\\": \\\"$(head -c 10000 /dev/zero | tr '\0' a)\\\"}\"")"
bad "NUL bytes inside a string" "$(raw '"{\"success\": true, \"profiling_command\": {\"command_type\": \"st\\u0000op\"}, \"command_id\": \"1f0b3650-ab14-47a5-9c0f-e7a23e7faf8b\"}"')"
# A well-formed command whose id is not a UUID: executed, but the id must
# not go back in later heartbeats (the backend would answer every one of
# them with "failed to check for commands").
srv_post /_fake/command '{"hostname": "'"$HOST"'", "service_name": "'"$STUDIO_SVC"'",
    "command_id": "not-a-uuid", "command_type": "start",
    "combined_config": {"continuous": true, "duration": 1}}' >/dev/null
wait_for 10 grep -q "new start command not-a-uuid" "$TMP/gp.log"
ok $? "a command with a non-UUID id is executed"
srv_post /_fake/clear '{}' >/dev/null
n=$(srv_py 'print(len(get("/_fake/heartbeats")))')
wait_for 10 srv_heartbeats_ge $((n + 1))
ok $? "the agent goes on heartbeating"
[ "$(srv_py 'print(len(get("/_fake/fallbacks")))')" -eq 0 ]
ok $? "no heartbeat was refused by the backend (no non-UUID ids sent)"

grep -q "heartbeat: bad answer" "$TMP/gp.log" && grep -q "heartbeat: HTTP 500" "$TMP/gp.log"
ok $? "bad answers and errors are logged"
grep -v not-a-uuid "$TMP/gp.log" | grep "new [a-z]* command" >"$TMP/taken"
[ "$(wc -l <"$TMP/taken")" -eq 1 ]
ok $? "none of them was taken for a command"
[ "$(wc -l <"$TMP/taken")" -eq 1 ] || sed 's/^/# /' "$TMP/taken"
malformed_reported() {
	srv_py '
comp = get("/_fake/completions")
for cid, word in ((sys.argv[1], "combined_config"), (sys.argv[2], "command_type")):
    mine = [c for c in comp if c["command_id"] == cid]
    print("# %s" % [(c["status"], c["error_message"]) for c in mine])
    if len(mine) != 1 or mine[0]["status"] != "failed" or \
            word not in (mine[0]["error_message"] or ""):
        sys.exit(1)
' "$LISTCFG" "$NUMTYPE"
}
# Completions are posted asynchronously: give the last one time to land
# (a slow, e.g. sanitizer, build on a loaded host: 10 s once fell short),
# then check once more for the record.
wait_for 30 malformed_reported
malformed_reported
ok $? "malformed commands with an id are reported \`failed\` once, with the reason"

n=$(srv_nprofiles)
wait_for 10 srv_nprofiles_ge $((n + 1))
ok $? "the continuous run kept uploading"

# A command whose combined_config has wrong types: failed, not a crash.
wt=$(srv_post /_fake/command '{"hostname": "'"$HOST"'", "service_name": "'"$STUDIO_SVC"'",
    "command_type": "start", "combined_config": {"continuous": "yes",
    "duration": [1], "pids": {"a": 1}, "profiler_configs": 3}}' |
    srv_py 'print(json.load(sys.stdin)["command_id"])')
wait_for 10 srv_completed "$wt"
srv_py '
c = [c for c in get("/_fake/completions") if c["command_id"] == sys.argv[1]][0]
print("# %s: %s" % (c["status"], c["error_message"]))
sys.exit(0 if c["status"] == "failed" and c["error_message"] else 1)
' "$wt"
ok $? "wrong-typed combined_config: \`failed\` with a message"

c2=$(srv_request '{"service_name": "'"$STUDIO_SVC"'", "request_type": "stop",
    "stop_level": "host", "target_hosts": {"'"$HOST"'": null}}')
wait_for 10 srv_completed "$c2"
ok $? "the next good command (stop) is executed"
gp_stop
ok $? "the agent stops on SIGTERM"

done_testing

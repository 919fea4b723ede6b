#!/bin/sh
# Agent logs to the Studio through the real daemon and the fake backend, in
# real time (batches every 10 s, as gProfiler's log shipper): start-up lines
# included, gProfiler's batch and entry format, gzip JSON with its headers,
# nothing lost across an outage, never the token, nothing at all with
# --dont-send-logs or GPROFILER_DONT_SEND_LOGS.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/integration/studio_lib.sh"
[ "$(id -u)" -eq 0 ] || skip_all "needs root"
studio_init
studio_server srv

# srv_logs_ge N: at least N entries arrived.
srv_logs_ge() {
	srv_py 'sys.exit(0 if len(get("/_fake/logs")) >= int(sys.argv[1])
    else 1)' "$1"
}
srv_log_has() {
	srv_py 'sys.exit(0 if any(sys.argv[1] in e["text"]["message"]
    for e in get("/_fake/logs")) else 1)' "$1"
}

# The token in a path the agent reports in a warning (pid file it cannot
# write): the line must arrive, with the token blanked.
gp_start gp -c -d 2 $gp_cheap -u --token "$STUDIO_TOKEN" \
    --service-name "$STUDIO_SVC" --server-host "$SRV_URL" \
    --api-server "$SRV_URL/" --spool-dir "$TMP/spool" \
    --state-dir "$TMP/state" --dotnet-mode dotnet-trace \
    --pid-file "$TMP/no-such-dir/$STUDIO_TOKEN/pid"
t0=$(date +%s)
wait_for 30 srv_logs_ge 1
ok $? "agent logs reach POST /api/v1/logs"
t1=$(date +%s)
[ $((t1 - t0)) -ge 5 ]
ok $? "the first batch waits for the batching period ($((t1 - t0)) s)"
srv_log_has "starting: mode cpu"
ok $? "start-up lines are shipped (queued before the shipper ran)"
srv_log_has "accepted for gProfiler compatibility, no effect here: --dotnet-mode"
ok $? "the compatibility line is shipped"
wait_for 15 srv_log_has "no-such-dir"
ok $? "the pid-file warning is shipped"
srv_get /_fake/logs >"$TMP/logs.json"
grep -q -- "$STUDIO_TOKEN" "$TMP/logs.json"
ok $(( ! $? )) "no shipped record contains the token"
srv_py '
logs = json.load(open(sys.argv[1]))
sys.exit(0 if any("no-such-dir/***/pid" in e["text"]["message"]
    for e in logs) else 1)' "$TMP/logs.json"
ok $? "the token is replaced by *** in the record"

srv_py '
logs = json.load(open(sys.argv[1]))
ok = all(isinstance(e["severity"], int) and 2 <= e["severity"] <= 6 and
         isinstance(e["timestamp_agent"], int) and
         e["timestamp_agent"] > 1.6e12 and
         e["text"]["logger_name"] and isinstance(e["text"]["serial_no"], int)
         and e["hostname"] and e["service_name"] == sys.argv[2] and
         len(e["run_id"]) == 36 and e["gprofiler_version"]
         for e in logs)
sys.exit(0 if ok and logs else 1)' "$TMP/logs.json" "$STUDIO_SVC"
ok $? "entries: severity, ms timestamp, text{message, logger_name, serial_no}, metadata"
srv_py '
logs = json.load(open(sys.argv[1]))
w = [e for e in logs if "no-such-dir" in e["text"]["message"]]
i = [e for e in logs if "starting: mode cpu" in e["text"]["message"]]
sys.exit(0 if w and w[0]["severity"] == 4 and i[0]["severity"] == 3 else 1)
' "$TMP/logs.json"
ok $? "severities: warning 4, info 3 (gProfiler's)"

srv_get /_fake/log_batches >"$TMP/batches.json"
srv_py '
b = json.load(open(sys.argv[1]))
ok = all(x["content_encoding"] == "gzip" and
         x["content_type"] == "application/json" and
         x["application"] == "gprofiler" and x["token_ok"] and
         len(x["batch_id"]) == 32 and x["lost_logs_count"] == 0 for x in b)
sys.exit(0 if ok and b and b[0]["n"] >= 3 else 1)' "$TMP/batches.json"
ok $? "batches: gzip JSON, X-Application-Name, X-Token, batch_id, several records each"

# An outage: every batch refused with 503 for a while, then back.
srv_post /_fake/fail '{"mode": "503", "paths": ["/api/v1/logs"]}' >/dev/null
wait_for 30 srv_failed_ge 503 1
n0=$(srv_py 'print(len(get("/_fake/logs")))')
wait_for 30 srv_failed_ge 503 3
ok $? "during the outage the shipper retries (3 refused batches seen)"
# Counted before the outage ends: once it does, a retry may land at once.
srv_py 'sys.exit(0 if len(get("/_fake/logs")) == int(sys.argv[1]) else 1)' \
    "$n0"
ok $? "nothing was recorded during the outage"
srv_post /_fake/clear '{}' >/dev/null
wait_for 40 srv_log_has "agent logs not delivered"
ok $? "after the outage, the records kept meanwhile arrive (with its warning)"
gp_stop
ok $? "the daemon stops on SIGTERM"
sleep 1
srv_get /_fake/logs >"$TMP/logs.json"
srv_py '
logs = json.load(open(sys.argv[1]))
s = sorted(e["text"]["serial_no"] for e in logs)
sys.exit(0 if s == list(range(1, len(s) + 1)) else 1)' "$TMP/logs.json"
ok $? "serial numbers 1..N without a gap: nothing lost or repeated"
srv_log_has "SIGTERM: stopping"
ok $? "the last lines leave with a final batch at shutdown"

# --dont-send-logs, and any GPROFILER_DONT_SEND_LOGS (as in gProfiler).
studio_server quiet
gp_start q1 -c -d 2 $gp_cheap -u --token "$STUDIO_TOKEN" \
    --service-name "$STUDIO_SVC" --server-host "$SRV_URL" \
    --api-server "$SRV_URL" --spool-dir "$TMP/spool2" \
    --state-dir "$TMP/state2" --dont-send-logs --pid-file ''
p1=$GP_PID
# A second agent: its own single-instance lock.
env GPROFILER_DONT_SEND_LOGS=false GPROFILER_LOCK_NAME="gptest-q2-$$" \
    "$GP_BIN" --plugin-dir "$GP_PLUGIN_DIR" -c -d 2 $gp_cheap -u \
    --token "$STUDIO_TOKEN" --service-name "$STUDIO_SVC" \
    --server-host "$SRV_URL" --api-server "$SRV_URL" \
    --spool-dir "$TMP/spool3" --state-dir "$TMP/state3" --pid-file '' \
    >>"$TMP/q2.log" 2>&1 &
GP_PID=$!
studio_pids="$studio_pids $GP_PID"
wait_for 20 srv_nprofiles_ge 2
sleep 12
srv_py 'sys.exit(0 if not any(r["path"] == "/api/v1/logs"
    for r in get("/_fake/requests")) else 1)'
ok $? "--dont-send-logs / GPROFILER_DONT_SEND_LOGS=false: no log request"
gp_stop
GP_PID=$p1
gp_stop
done_testing

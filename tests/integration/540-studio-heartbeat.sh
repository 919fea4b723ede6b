#!/bin/sh
# Dynamic profiling through the heartbeat (docs/specs/studio-api.md §5-§9):
# commands made by profile_request the way the backend makes them.  A continuous
# start runs and is acknowledged; an ad-hoc start pauses it, uploads with
# flamegraph_html, is reported `completed` when it ends, and the continuous run
# resumes; stop stops everything.  The re-sent latest command runs once.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/integration/studio_lib.sh"
studio_init
studio_server srv

gp_start gp --enable-heartbeat-server --heartbeat-interval 1 \
    --api-server "$SRV_URL" -u --token "$STUDIO_TOKEN" \
    --service-name "$STUDIO_SVC" --server-host "$SRV_URL" $gp_cheap \
    -o "$TMP/out" --spool-dir "$TMP/spool" --state-dir "$TMP/state" -v
wait_for 10 srv_heartbeats_ge 1
ok $? "the agent sends heartbeats"
HOST=$(srv_agent_hostname)
sleep 1.5
[ "$(srv_nprofiles)" -eq 0 ]
ok $? "nothing is profiled before a command"

c1=$(srv_request '{"service_name": "'"$STUDIO_SVC"'", "request_type": "start",
    "continuous": true, "duration": 1, "frequency": 11, "profiling_mode": "cpu",
    "target_hosts": {"'"$HOST"'": null}}')
wait_for 10 srv_completed "$c1"
ok $? "continuous start: completion reported"
wait_for 10 srv_nprofiles_ge 2
ok $? "continuous start: cycles are uploaded"

c2=$(srv_request '{"service_name": "'"$STUDIO_SVC"'", "request_type": "start",
    "continuous": false, "duration": 2, "frequency": 11, "profiling_mode": "cpu",
    "target_hosts": {"'"$HOST"'": null}}')
wait_for 12 srv_completed "$c2"
ok $? "ad-hoc start: completion reported"
# Two continuous profiles that start after the ad-hoc one ended: counting
# profiles alone is not enough, the ad-hoc upload may land after its
# completion.
cont_after_adhoc_ge() {
	srv_py '
profs = get("/_fake/profiles")
ra = lambda p: p["header"]["metadata"]["run_arguments"].get("continuous")
adhoc = [p for p in profs if ra(p) is False]
after = [p for p in profs if ra(p) is True and adhoc and
    p["start_time"] >= adhoc[0]["end_time"]]
sys.exit(0 if len(after) >= int(sys.argv[1]) else 1)
' "$1"
}
wait_for 20 cont_after_adhoc_ge 2
ok $? "the continuous run resumes after the ad-hoc run"

c3=$(srv_request '{"service_name": "'"$STUDIO_SVC"'", "request_type": "stop",
    "stop_level": "host", "target_hosts": {"'"$HOST"'": null}}')
wait_for 10 srv_completed "$c3"
ok $? "stop: completion reported"
sleep 0.5
n_stop=$(srv_nprofiles)
nhb=$(srv_py 'print(len(get("/_fake/heartbeats")))')
wait_for 10 srv_heartbeats_ge $((nhb + 2))
sleep 1
[ "$(srv_nprofiles)" -eq "$n_stop" ]
ok $? "after stop nothing more is uploaded"
kill -0 "$GP_PID" 2>/dev/null
ok $? "the agent is still running (waiting for commands)"
gp_stop
ok $? "it stops on SIGTERM"

srv_get /_fake/completions >"$TMP/completions.json"
srv_get /_fake/profiles >"$TMP/profiles.json"
srv_get /_fake/heartbeats >"$TMP/heartbeats.json"

srv_py '
comp = json.load(open(sys.argv[1]))
ids = sys.argv[2:5]
got = [(c["command_id"], c["status"], c["accepted"]) for c in comp]
print("# %s" % got)
sys.exit(0 if got == [(i, "completed", True) for i in ids] else 1)
' "$TMP/completions.json" "$c1" "$c2" "$c3"
ok $? "one accepted \`completed\` per command, in order"

srv_py '
import datetime
profs = json.load(open(sys.argv[1]))
comp = {c["command_id"]: c for c in json.load(open(sys.argv[2]))}
def epoch(s):
    return datetime.datetime.fromisoformat(s).replace(
        tzinfo=datetime.timezone.utc).timestamp()
adhoc = [p for p in profs if p["header"]["metadata"]["run_arguments"].get("continuous") is False]
if len(adhoc) != 1:
    sys.exit(1)
a = adhoc[0]
# Reported at the end: at least the 2 s duration after the (truncated) start.
r = comp[sys.argv[3]]["received"]
print("# ad-hoc %s..%s, completion %.1f s after its start" % (a["start_time"], a["end_time"], r - epoch(a["start_time"])))
sys.exit(0 if r >= epoch(a["start_time"]) + 1.5 else 1)
' "$TMP/profiles.json" "$TMP/completions.json" "$c2"
ok $? "the ad-hoc run uploads once and is reported when it ends, not at its start"

# Times are whole seconds, and a cycle that ends in the second of the one
# before is dated one second later (core/run/cycle.c): a continuous cycle
# that ended just before the ad-hoc run began can carry an end in its
# first second.  A second of slack at each end; a continuous cycle run
# during the ad-hoc one still overlaps its inner seconds.
srv_py '
import datetime
profs = json.load(open(sys.argv[1]))
cont = [p for p in profs if p["header"]["metadata"]["run_arguments"].get("continuous") is True]
adhoc = [p for p in profs if p["header"]["metadata"]["run_arguments"].get("continuous") is False]
a = adhoc[0]
t = lambda s: datetime.datetime.fromisoformat(s.replace("Z", "")).timestamp()
overlap = [p["start_time"] for p in cont
    if t(p["start_time"]) < t(a["end_time"]) - 1 and
       t(p["end_time"]) > t(a["start_time"]) + 1]
before = [p for p in cont if p["end_time"] <= a["start_time"]]
after = [p for p in cont if p["start_time"] >= a["end_time"]]
print("# continuous: %d before, %d after, overlapping %s" % (len(before), len(after), overlap))
sys.exit(0 if not overlap and len(before) >= 2 and len(after) >= 2 else 1)
' "$TMP/profiles.json"
ok $? "the continuous run is paused during the ad-hoc run"

srv_py '
profs = json.load(open(sys.argv[1]))
bad = [p["start_time"] for p in profs
    if (p["header"].get("flamegraph_html") is not None) ==
       p["header"]["metadata"]["run_arguments"].get("continuous")]
sys.exit(0 if profs and not bad else 1)
' "$TMP/profiles.json"
ok $? "flamegraph_html only in the ad-hoc upload"

srv_py '
hbs = json.load(open(sys.argv[1]))
n = {i: sum(1 for h in hbs if h.get("last_command_id") == i) for i in sys.argv[2:]}
print("# heartbeats after each command: %s" % list(n.values()))
sys.exit(0 if all(v >= 2 for v in n.values()) else 1)
' "$TMP/heartbeats.json" "$c1" "$c3"
ok $? "commands were re-sent on later heartbeats (dedup was exercised)"

for c in "$c1" "$c2" "$c3"; do
	[ "$(grep -c "new [a-z]* command $c" "$TMP/gp.log")" -eq 1 ] || break
done
ok $? "each command was executed once"
[ "$(grep -c "profiling run:" "$TMP/gp.log")" -eq 3 ]
ok $? "three runs: continuous, ad-hoc, resumed continuous"

srv_py '
hbs = json.load(open(sys.argv[1]))
last = hbs[-1]
okay = all(i in (last.get("executed_command_ids") or []) for i in sys.argv[2:5])
okay = okay and all(h["service_name"] == sys.argv[5] for h in hbs)
print("# last heartbeat: %s" % {k: last[k] for k in ("executed_command_ids", "received_command_ids", "last_command_id")})
sys.exit(0 if okay else 1)
' "$TMP/heartbeats.json" "$c1" "$c2" "$c3" "$STUDIO_SVC"
ok $? "heartbeats carry the executed ids and the service name"

done_testing

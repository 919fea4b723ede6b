#!/bin/sh
# SIGHUP in dynamic-profiling mode: the continuous run a command started
# restarts on the re-read config file after its current cycle (its command
# settings kept, nothing acknowledged twice, no cycle lost), settings read
# once at start are kept and named, and a bad file keeps the old one.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/integration/studio_lib.sh"
studio_init
studio_server srv

conf="$TMP/gp.conf"
printf 'output-dir = %s\nheartbeat-interval = 1\n' "$TMP/out1" >"$conf"
chmod 600 "$conf"
gp_start gp --config "$conf" --enable-heartbeat-server \
    --api-server "$SRV_URL" -u --token "$STUDIO_TOKEN" \
    --service-name "$STUDIO_SVC" --server-host "$SRV_URL" $gp_cheap \
    --spool-dir "$TMP/spool" --state-dir "$TMP/state" -v
wait_for 10 srv_heartbeats_ge 1
ok $? "the agent sends heartbeats"
HOST=$(srv_agent_hostname)

c1=$(srv_request '{"service_name": "'"$STUDIO_SVC"'", "request_type": "start",
    "continuous": true, "duration": 1, "frequency": 7, "profiling_mode": "cpu",
    "target_hosts": {"'"$HOST"'": null}}')
wait_for 10 srv_completed "$c1"
ok $? "continuous start acknowledged"
wait_for 10 sh -c 'ls "$1"/profile_*.col' sh "$TMP/out1"
ok $? "cycles go to the output dir of the config file"

printf 'output-dir = %s\nheartbeat-interval = 3\n' "$TMP/out2" >"$conf"
kill -HUP "$GP_PID"
wait_for 10 sh -c 'ls "$1"/profile_*.col' sh "$TMP/out2"
ok $? "after SIGHUP the running continuous run writes to the new dir"
grep -q "configuration reloaded" "$TMP/gp.log"
ok $? "the reload is logged"
grep -q "heartbeat-interval changed; that takes a restart" "$TMP/gp.log"
ok $? "a setting read once at start is named, not silently ignored"
n=$(srv_nprofiles)
wait_for 10 srv_nprofiles_ge $((n + 2))
ok $? "uploads go on"

printf 'output-dir = %s\nprofiling-duration = banana\n' "$TMP/out3" >"$conf"
kill -HUP "$GP_PID"
wait_for 10 grep -q "keeping the previous configuration" "$TMP/gp.log"
ok $? "a bad file on SIGHUP is refused"
n2=$(ls "$TMP"/out2/profile_*.col | wc -l)
wait_for 10 sh -c '[ $(ls "$1"/profile_*.col | wc -l) -gt "$2" ]' sh \
    "$TMP/out2" "$n2"
ok $? "and the run keeps its configuration"
[ ! -e "$TMP/out3" ]
ok $? "nothing of the bad file is applied"

gp_stop
ok $? "the daemon stops on SIGTERM"

srv_get /_fake/profiles >"$TMP/profiles.json"
srv_get /_fake/completions >"$TMP/completions.json"
srv_py '
comps = json.load(open(sys.argv[1]))
mine = [c for c in comps if c["command_id"] == sys.argv[2]]
sys.exit(0 if len(mine) == 1 and mine[0]["status"] == "completed" else 1)
' "$TMP/completions.json" "$c1"
ok $? "the command is acknowledged once, as completed (a reload is not a new command)"

srv_py '
profs = json.load(open(sys.argv[1]))
fr = set(p["header"]["metadata"]["run_arguments"].get("frequency") for p in profs)
print("# frequencies in the uploads: %s" % sorted(fr))
sys.exit(0 if fr == {7} else 1)
' "$TMP/profiles.json"
ok $? "the restarted run keeps the command's settings (frequency 7)"

# Every cycle before and after the reload is uploaded and on disk: the
# restart waited for the cycle in progress.
srv_py '
import glob
profs = json.load(open(sys.argv[1]))
up = set(p["profile"] for p in profs)
cols = sorted(glob.glob(sys.argv[2] + "/out[12]/profile_*.col"))
missing = [c for c in cols if open(c).read() not in up]
print("# %d cols, %d uploads, not uploaded: %s" % (len(cols), len(up), missing))
sys.exit(0 if cols and not missing and len(up) == len(cols) else 1)
' "$TMP/profiles.json" "$TMP"
ok $? "every cycle written is uploaded once, across the reload"

done_testing

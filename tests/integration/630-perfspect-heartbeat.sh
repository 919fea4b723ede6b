#!/bin/sh
# Hardware metrics switched on from dynamic profiling: a heartbeat command
# whose combined_config has enable_perfspect: true runs PerfSpect for that
# run (the fake one, configured with --perfspect-path), and the uploaded
# profiles carry hwmetrics and htmlblob; a run without it carries none.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/integration/studio_lib.sh"
[ "$(uname -m)" = x86_64 ] || skip_all "PerfSpect is x86_64 only"
studio_init
studio_server srv
# The fake at a fifth of PerfSpect's timing (7 s of set-up in 1.4 s);
# 670-perfspect-heartbeat-realtime.sh runs this at real timing, with 20 s
# cycles (PS_DURATION) and waits to match (PS_WAIT).
export FAKE_PERFSPECT_SCALE=${FAKE_PERFSPECT_SCALE:-0.2}
PS_DURATION=${PS_DURATION:-5} PS_WAIT=${PS_WAIT:-40}
# Children get a minimal environment: pass the fake its switches.
export GPROFILER_CHILD_ENV="FAKE_PERFSPECT_*"
gp_start gp --enable-heartbeat-server --heartbeat-interval 1 \
    --api-server "$SRV_URL" -u --token "$STUDIO_TOKEN" \
    --service-name "$STUDIO_SVC" --server-host "$SRV_URL" $gp_cheap \
    --perfspect-path "$top_srcdir/tests/fakes/fake_perfspect" \
    --spool-dir "$TMP/spool" --state-dir "$TMP/state" -v
wait_for 10 srv_heartbeats_ge 1
ok $? "the agent sends heartbeats"
HOST=$(srv_agent_hostname)

# hw_in_profiles FROM: how many profiles from index FROM on carry hwmetrics
hw_in_profiles() {
	srv_py 'import sys
ps = get("/_fake/profiles")[int(sys.argv[1]):]
print(sum(1 for p in ps if (p.get("header") or {}).get("hwmetrics")))' "$1"
}

c1=$(srv_request '{"service_name": "'"$STUDIO_SVC"'", "request_type": "start",
    "continuous": true, "duration": '"$PS_DURATION"', "frequency": 11,
    "profiling_mode": "cpu", "target_hosts": {"'"$HOST"'": null},
    "additional_args": {"enable_perfspect": true}}')
wait_for 10 srv_completed "$c1"
ok $? "start with enable_perfspect: acknowledged"
wait_for "$PS_WAIT" srv_nprofiles_ge 3
ok $? "cycles are uploaded"
n=$(hw_in_profiles 1)
[ "${n:-0}" -ge 1 ]; ok $? "uploaded profiles carry hwmetrics ($n after the first)"
grep -q "perfspect" "$TMP/gp.log"; ok $? "the perfspect plugin ran"

c2=$(srv_request '{"service_name": "'"$STUDIO_SVC"'", "request_type": "start",
    "continuous": true, "duration": 2, "frequency": 11, "profiling_mode": "cpu",
    "target_hosts": {"'"$HOST"'": null},
    "additional_args": {"enable_perfspect": false}}')
wait_for 15 srv_completed "$c2"
ok $? "a start without perfspect replaces the run"
base=$(srv_nprofiles)
wait_for 20 srv_nprofiles_ge $((base + 3))
ok $? "its cycles are uploaded"
n=$(hw_in_profiles $((base + 1)))
[ "${n:-1}" -eq 0 ]; ok $? "and carry no hwmetrics ($n)"
gp_stop
done_testing

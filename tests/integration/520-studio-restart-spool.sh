#!/bin/sh
# The agent is restarted while the backend is down: the profiles spooled by
# the first run (same --spool-dir) still arrive after the restart, before
# the second run's, in order, none twice; spool files are owner-only; each
# agent process keeps its own gpid (an old run's profiles do not lend their
# gpid to the new process).
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/integration/studio_lib.sh"
studio_init
studio_server srv --state "$TMP/srv.state"
port=$SRV_PORT
studio_stop_server srv		# the backend is down: connections refused

gp_start run1 -c -d 1 $gp_cheap -u --token "$STUDIO_TOKEN" \
    --service-name "$STUDIO_SVC" --server-host "$SRV_URL" \
    -o "$TMP/out1" --spool-dir "$TMP/spool" --state-dir "$TMP/state" -v
wait_for 15 sh -c "[ \$(ls '$TMP'/out1/profile_*.col 2>/dev/null | wc -l) -ge 3 ]"
ok $? "run 1 writes cycles while the backend is down"
gp_stop
ok $? "run 1 stops on SIGTERM although uploads are pending"

ncol1=$(ls "$TMP"/out1/profile_*.col | wc -l)
nspool=$(ls "$TMP"/spool/*.prof 2>/dev/null | wc -l)
[ "$nspool" -eq "$ncol1" ]
ok $? "every cycle of run 1 is spooled ($nspool files for $ncol1 cycles)"

bad=$(find "$TMP/spool" -type f -perm /077 | wc -l)
[ "$nspool" -gt 0 ] && [ "$bad" -eq 0 ]
ok $? "spool files are not readable by group or others"

! ls -a "$TMP/spool" | grep -q '^\.tmp-'
ok $? "no temporary spool files left"

grep -q "$STUDIO_TOKEN" "$TMP"/spool/*.prof
[ $? -ne 0 ]
ok $? "the spool does not hold the token"

# The backend comes back on the same port with the same state.
studio_server srv --port "$port" --state "$TMP/srv.state"
[ "$SRV_PORT" = "$port" ]
ok $? "the backend is back on port $port"

gp_start run2 -c -d 1 $gp_cheap -u --token "$STUDIO_TOKEN" \
    --service-name "$STUDIO_SVC" --server-host "$SRV_URL" \
    -o "$TMP/out2" --spool-dir "$TMP/spool" --state-dir "$TMP/state" -v
wait_for 25 srv_nprofiles_ge "$((ncol1 + 2))"
ok $? "run 1's backlog and run 2's cycles arrive"
gp_stop
ok $? "run 2 stops on SIGTERM"

grep -q "from a previous run" "$TMP/run2.log"
ok $? "run 2 logs the spooled profiles it found"

srv_get /_fake/profiles >"$TMP/profiles.json"
srv_py '
import glob
profs = json.load(open(sys.argv[1]))
up = [p["profile"] for p in profs]
c1 = [open(f).read() for f in sorted(glob.glob(sys.argv[2] + "/out1/profile_*.col"))]
c2 = [open(f).read() for f in sorted(glob.glob(sys.argv[2] + "/out2/profile_*.col"))]
print("# run1 %d, run2 %d, uploads %d" % (len(c1), len(c2), len(up)))
sys.exit(0 if up[:len(c1)] == c1 and up[len(c1):] == c2 else 1)
' "$TMP/profiles.json" "$TMP"
ok $? "run 1's profiles first, in order, then run 2's; none missing, none twice"

srv_py '
profs = json.load(open(sys.argv[1]))
by = {}
for p in profs:
    md = p["header"]["metadata"]
    by.setdefault((md["pid"], md["spawn_time"]), set()).add(p["gpid"])
gp = [g for s in by.values() for g in s]
print("# gpids per process: %s" % list(by.values()))
sys.exit(0 if len(by) == 2 and len(gp) == 2 and len(set(gp)) == 2 else 1)
' "$TMP/profiles.json"
ok $? "each agent process has its own single gpid"

srv_py '
profs = json.load(open(sys.argv[1]))
mine = [p for p in profs if p["header"]["metadata"]["pid"] == int(sys.argv[2])]
sys.exit(0 if mine and mine[0]["gpid_sent"] == "" and
    all(p["gpid_sent"] == mine[0]["gpid"] for p in mine[1:]) else 1)
' "$TMP/profiles.json" "$GP_PID"
ok $? "run 2 starts its own gpid flow (\"\", then its gpid)"

# Issue 11: run 1's profiles are logged with the gpid they were filed
# under (run 1's), never as "accepted (gpid )".
srv_py '
profs = json.load(open(sys.argv[1]))
g1 = [p["gpid"] for p in profs if p["header"]["metadata"]["pid"] != int(sys.argv[3])]
log = open(sys.argv[2]).read()
n = log.count("(spooled by an earlier agent process) accepted (gpid %s)" % g1[0])
print("# run 1 gpid %s: %d log lines" % (g1[0], n))
sys.exit(0 if n == len(g1) and "(gpid )" not in log else 1)
' "$TMP/profiles.json" "$TMP/run2.log" "$GP_PID"
ok $? "run 2 logs run 1's spooled profiles with run 1's gpid"

[ -z "$(ls "$TMP/spool" 2>/dev/null)" ]
ok $? "the spool is empty afterwards"

done_testing

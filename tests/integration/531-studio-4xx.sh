#!/bin/sh
# 4xx answers other than 408/429 are not retried: the profile is moved to
# the spool's rejected/ directory and the server's message is logged; the
# agent keeps profiling.  429 is retried.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/integration/studio_lib.sh"
studio_init
studio_server srv

# A service name that the backend sanitises to nothing: every upload gets
# 400 {"message": "Invalid GPROFILER-SERVICE-NAME header"}; the health
# check accepts any name.
gp_start bad -c -d 1 $gp_cheap -u --token "$STUDIO_TOKEN" \
    --service-name '@@@' --server-host "$SRV_URL" \
    --spool-dir "$TMP/spool" --state-dir "$TMP/state" -v
wait_for 15 sh -c "[ \$(ls '$TMP'/spool/rejected 2>/dev/null | wc -l) -ge 3 ]"
ok $? "refused profiles are moved to rejected/"
kill -0 "$GP_PID" 2>/dev/null
ok $? "the agent keeps running"
gp_stop
ok $? "it stops on SIGTERM"

nrej=$(ls "$TMP"/spool/rejected | wc -l)
srv_get /_fake/requests >"$TMP/requests.json"
srv_py '
reqs = json.load(open(sys.argv[1]))
ups = [r for r in reqs if r.get("path") == "/api/v2/profiles"]
print("# %d upload requests, %d rejected files" % (len(ups), int(sys.argv[2])))
sys.exit(0 if ups and all(r.get("status") == 400 for r in ups) and
    len(ups) == int(sys.argv[2]) else 1)
' "$TMP/requests.json" "$nrej"
ok $? "each refused profile was sent once (no retries)"

[ "$(srv_nprofiles)" -eq 0 ]
ok $? "the server accepted none"

grep -q "Invalid GPROFILER-SERVICE-NAME header" "$TMP/bad.log"
ok $? "the server's message is logged"
grep -q "not retrying" "$TMP/bad.log" && ! grep -q "retrying in" "$TMP/bad.log"
ok $? "the log says it is not retried"

[ "$(find "$TMP/spool/rejected" -type f -perm /077 | wc -l)" -eq 0 ] &&
    [ "$(stat -c %a "$TMP/spool/rejected")" = 700 ]
ok $? "rejected/ and its files are owner-only"

# 413 once (not retried, set aside), then 429 once (retried), then healthy.
rm -rf "$TMP/spool"
srv_post /_fake/fail '{"mode": "413", "count": 1, "paths": ["/api/v2/profiles"]}' >/dev/null
gp_start good -c -d 1 $gp_cheap -u --token "$STUDIO_TOKEN" \
    --service-name "$STUDIO_SVC" --server-host "$SRV_URL" \
    -o "$TMP/out" --spool-dir "$TMP/spool" --state-dir "$TMP/state" -v
wait_for 10 srv_failed_ge 413 1
srv_post /_fake/fail '{"mode": "429", "count": 1, "paths": ["/api/v2/profiles"]}' >/dev/null
wait_for 10 srv_failed_ge 429 1
wait_for 15 srv_nprofiles_ge 3
ok $? "uploads go on after a 413 and a 429"
gp_stop

[ "$(ls "$TMP"/spool/rejected 2>/dev/null | wc -l)" -eq 1 ]
ok $? "exactly one profile (the 413) was set aside"
grep -q "HTTP 413: Request Entity Too Large; not retrying" "$TMP/good.log"
ok $? "the 413 and its bare-string message are logged"
grep -q "HTTP 429.*retrying in" "$TMP/good.log"
ok $? "the 429 is retried"

srv_get /_fake/profiles >"$TMP/profiles.json"
srv_py '
import glob
profs = [p["profile"] for p in json.load(open(sys.argv[1]))]
cols = sorted(glob.glob(sys.argv[2] + "/profile_*.col"))
missing = [c for c in cols if open(c).read() not in profs]
print("# %d cols, %d accepted, not accepted: %s" % (len(cols), len(profs), missing))
sys.exit(0 if len(missing) == 1 and len(set(profs)) == len(profs) else 1)
' "$TMP/profiles.json" "$TMP/out"
ok $? "all other cycles arrived, none twice (the 429'd one included)"

done_testing

#!/bin/sh
# The backend is down for several cycles (500s, then refused connections),
# then back: every cycle's profile arrives, in order, none twice, and each
# equals the local .col of its cycle (-o).
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/integration/studio_lib.sh"
studio_init
studio_server srv

# Down from the start: the first profiles are spooled before the agent
# knows its gpid, and must go out with it once it does.
srv_post /_fake/fail '{"mode": "500", "paths": ["/api/v2/profiles"]}' >/dev/null
gp_start gp -c -d 1 $gp_cheap -u --token "$STUDIO_TOKEN" \
    --service-name "$STUDIO_SVC" --server-host "$SRV_URL" \
    -o "$TMP/out" --spool-dir "$TMP/spool" --state-dir "$TMP/state" -v
sleep 2.5
srv_post /_fake/clear '{}' >/dev/null
wait_for 15 srv_nprofiles_ge 2
ok $? "the first cycles are accepted once the backend is up"

# Refused connections until two attempts failed, then 500s until one more.
srv_post /_fake/fail '{"mode": "refuse", "paths": ["/api/v2/profiles"]}' >/dev/null
wait_for 10 srv_failed_ge refuse 2
n500=$(srv_py 'print(sum(1 for r in get("/_fake/requests") if r.get("failed") == "500"))')
srv_post /_fake/fail '{"mode": "500", "paths": ["/api/v2/profiles"]}' >/dev/null
wait_for 15 srv_failed_ge 500 $((n500 + 1))
down_n=$(srv_nprofiles)
ls "$TMP"/spool/*.prof >/dev/null 2>&1
ok $? "while the backend is down profiles wait in the spool"
srv_post /_fake/clear '{}' >/dev/null
n_cols_at_clear=$(ls "$TMP"/out/profile_*.col | wc -l)

# Everything written so far must arrive (backoff is at most a few seconds
# after such a short outage).
wait_for 25 srv_nprofiles_ge "$((n_cols_at_clear + 1))"
ok $? "after the outage the backlog drains ($down_n accepted before, $n_cols_at_clear cycles written at recovery)"
gp_stop
ok $? "the daemon stops on SIGTERM"

srv_get /_fake/profiles >"$TMP/profiles.json"
srv_get /_fake/requests >"$TMP/requests.json"

srv_py '
reqs = json.load(open(sys.argv[1]))
f500 = sum(1 for r in reqs if r.get("failed") == "500")
fref = sum(1 for r in reqs if r.get("failed") == "refuse")
sys.exit(0 if f500 >= int(sys.argv[2]) + 1 and fref >= 2 else 1)
' "$TMP/requests.json" "$n500"
ok $? "the server saw failed attempts of both kinds (retries happened)"

grep -q "retrying in" "$TMP/gp.log"
ok $? "the failures and the backoff are logged"

srv_py '
import glob
profs = json.load(open(sys.argv[1]))
cols = sorted(glob.glob(sys.argv[2] + "/profile_*.col"))
texts = [open(f).read() for f in cols]
up = [p["profile"] for p in profs]
missing = [c for c, t in zip(cols, texts) if t not in up]
dups = len(up) - len(set(up))
print("# %d cols, %d uploads, missing %s, %d duplicates" % (len(cols), len(up), missing, dups))
sys.exit(0 if not missing and dups == 0 and len(up) == len(cols) else 1)
' "$TMP/profiles.json" "$TMP/out"
ok $? "every cycle's profile arrived exactly once"

srv_py '
profs = json.load(open(sys.argv[1]))
ts = [p["header"]["metadata"]["current_time"] for p in profs]
st = [p["start_time"] for p in profs]
sys.exit(0 if ts == sorted(ts) and st == sorted(st) and len(set(ts)) == len(ts) else 1)
' "$TMP/profiles.json"
ok $? "in cycle order (current_time and start_time increase)"

srv_py '
profs = json.load(open(sys.argv[1]))
g = profs[0]["gpid"]
sys.exit(0 if all(p["gpid"] == g for p in profs) and
    all(p["gpid_sent"] == g for p in profs[1:]) else 1)
' "$TMP/profiles.json"
ok $? "one gpid: \"\" only on the first accepted upload, then the server's (also for profiles spooled before it was known), kept through the outage"

[ -z "$(ls "$TMP/spool" 2>/dev/null)" ]
ok $? "the spool is empty afterwards (nothing rejected)"

done_testing

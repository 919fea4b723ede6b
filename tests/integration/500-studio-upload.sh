#!/bin/sh
# Uploads through the real daemon to the fake Studio backend, which enforces
# the backend's metadata validation (docs/specs/studio-api.md §4): every cycle's
# profile is accepted, equals the local .col, carries the gpid flow ("" first,
# then the server's), and the token appears in no header, .col or log.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/integration/studio_lib.sh"
studio_init
studio_server srv

# The fake really validates: a header with an invalid MAC is refused.
srv_py '
import gzip, urllib.error
md = {"hostname": "h", "mac_address": "unknown"}
body = json.dumps({"start_time": "2025-01-08T11:00:00", "gpid": "",
    "profile": "# " + json.dumps({"metadata": md}) + "\n"}).encode()
r = urllib.request.Request(BASE + "/api/v2/profiles", data=body, headers={
    "GPROFILER-API-KEY": sys.argv[1], "GPROFILER-SERVICE-NAME": "s",
    "Content-Type": "application/json"})
try:
    urllib.request.urlopen(r, timeout=10)
    sys.exit(1)
except urllib.error.HTTPError as e:
    sys.exit(0 if e.code == 400 and b"Failed to parse v2 metadata" in e.read() else 1)
' "$STUDIO_TOKEN"
ok $? "control: the fake server refuses bad metadata with 400"

gp_start gp -c -d 1 $gp_cheap -u --token "$STUDIO_TOKEN" \
    --service-name "$STUDIO_SVC" --server-host "$SRV_URL/" \
    -o "$TMP/out" --spool-dir "$TMP/spool" --state-dir "$TMP/state" \
    --log-file "$TMP/gp.logfile" -v
wait_for 20 srv_nprofiles_ge 3
ok $? "three cycles uploaded and accepted"
gp_stop
ok $? "the daemon stops on SIGTERM"

srv_get /_fake/profiles >"$TMP/profiles.json"
srv_get /_fake/requests >"$TMP/requests.json"

srv_py '
reqs = json.load(open(sys.argv[1]))
ups = [r for r in reqs if r.get("path") == "/api/v2/profiles"]
acc = len(json.load(open(sys.argv[2])))
# The control request above is the one refused.
bad = [r for r in ups if r.get("status") != 200]
sys.exit(0 if len(bad) == 1 and len(ups) == acc + 1 and acc >= 3 else 1)
' "$TMP/requests.json" "$TMP/profiles.json"
ok $? "every upload request was accepted (none refused by validation)"

srv_py '
reqs = json.load(open(sys.argv[1]))
sys.exit(0 if any(r.get("path") == "/api/v1/health_check" for r in reqs) else 1)
' "$TMP/requests.json"
ok $? "a health check was made at start"

srv_py '
import glob
profs = json.load(open(sys.argv[1]))
cols = [open(f).read() for f in glob.glob(sys.argv[2] + "/profile_*.col")]
sys.exit(0 if profs and all(p["profile"] in cols for p in profs) else 1)
' "$TMP/profiles.json" "$TMP/out"
ok $? "each uploaded profile is byte-identical to a local .col"

srv_py '
profs = json.load(open(sys.argv[1]))
g = profs[0]["gpid"]
okay = profs[0]["gpid_sent"] == "" and g.isdigit() and \
    all(p["gpid_sent"] == g for p in profs[1:])
sys.exit(0 if okay else 1)
' "$TMP/profiles.json"
ok $? "gpid: \"\" first, then the server's string"

srv_py '
profs = json.load(open(sys.argv[1]))
okay = all(p["content_encoding"] == "gzip" and
    p["query"].get("service") == [sys.argv[2]] and
    p["query"].get("hostname") == [p["header"]["metadata"]["hostname"]] and
    p["start_time"] < p["end_time"] for p in profs)
sys.exit(0 if okay else 1)
' "$TMP/profiles.json" "$STUDIO_SVC"
ok $? "gzip body, query string with service and hostname, start < end"

srv_py '
profs = json.load(open(sys.argv[1]))
md = profs[0]["header"]["metadata"]
okay = isinstance(md["spawn_uptime_ms"], int) and md["mac_address"] != "unknown"
sys.exit(0 if okay else 1)
' "$TMP/profiles.json"
ok $? "metadata: integer spawn_uptime_ms, a real MAC"

srv_py '
profs = json.load(open(sys.argv[1]))
sys.exit(1 if any(sys.argv[2] in p["profile"] for p in profs) else 0)
' "$TMP/profiles.json" "$STUDIO_TOKEN"
ok $? "the token is not in any uploaded profile (header included)"

ls "$TMP"/out/*.col >/dev/null 2>&1 && ! grep -l "$STUDIO_TOKEN" "$TMP"/out/*
ok $? "the token is not in the local output"

[ -s "$TMP/gp.logfile" ] && ! grep -q "$STUDIO_TOKEN" "$TMP/gp.logfile" "$TMP/gp.log"
ok $? "the token is not in the log file or on stderr"

[ -z "$(ls "$TMP/spool" 2>/dev/null | grep -v '^rejected$')" ]
ok $? "the spool is empty once everything was accepted"

grep -q "profile #1 accepted" "$TMP/gp.log"
ok $? "acceptance is logged"

done_testing

#!/bin/sh
# Issue 11 #5: a busy process whose name is not UTF-8 (or holds \v, ';')
# must not make the backend refuse the host's profile.  The fake Studio
# decodes bodies strictly as the real one does (422); every cycle must be
# accepted, with the names escaped by the one text rule (core/base/textesc.c)
# and one stack per line.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/workloads/perf_lib.sh"
. "$top_srcdir/tests/integration/studio_lib.sh"
perf_require
studio_init
studio_server srv

# Control: the fake refuses a body with a byte that is not UTF-8.
srv_py '
import urllib.error
body = b"{\"start_time\": \"2025-01-08T11:00:00\", \"gpid\": \"\", " \
    b"\"profile\": \"# {}\\n0;;\xffx;f 1\"}"
r = urllib.request.Request(BASE + "/api/v2/profiles", data=body, headers={
    "GPROFILER-API-KEY": sys.argv[1], "GPROFILER-SERVICE-NAME": "s",
    "Content-Type": "application/json"})
try:
    urllib.request.urlopen(r, timeout=10)
    sys.exit(1)
except urllib.error.HTTPError as e:
    sys.exit(0 if e.code == 422 and b"utf-8" in e.read() else 1)
' "$STUDIO_TOKEN"
ok $? "control: the fake Studio answers 422 to invalid UTF-8"

# The issue's reproduction, and a name with a vertical tab and ';'.
bad1="$TMP/$(printf '\377x')"
bad2="$TMP/$(printf 'a;b\013c')"
cp /usr/bin/yes "$bad1" && cp /usr/bin/yes "$bad2"
"$bad1" >/dev/null & y1=$!
"$bad2" >/dev/null & y2=$!
gp_start gp -c -d 2 --perf-mode fp --python-mode disabled \
    --java-mode disabled -u --token "$STUDIO_TOKEN" \
    --service-name "$STUDIO_SVC" --server-host "$SRV_URL" \
    -o "$TMP/out" --spool-dir "$TMP/spool" --state-dir "$TMP/state"
wait_for 30 srv_nprofiles_ge 3
ok $? "three cycles accepted by the Studio"
gp_stop
kill $y1 $y2 2>/dev/null; wait $y1 $y2 2>/dev/null

srv_get /_fake/requests >"$TMP/requests.json"
srv_get /_fake/profiles >"$TMP/profiles.json"
srv_py '
reqs = json.load(open(sys.argv[1]))
ups = [r for r in reqs if r.get("path") == "/api/v2/profiles"]
bad = [r for r in ups if r.get("status") != 200]
print("# %d uploads, refused: %s" % (len(ups), [r.get("status") for r in bad]))
sys.exit(0 if len(ups) >= 4 and len(bad) == 1 else 1)
' "$TMP/requests.json"
ok $? "no upload of the agent refused (only the control)"
srv_py '
profs = json.load(open(sys.argv[1]))
lines = [l for p in profs for l in p["profile"].split("\n")[1:]]
comms = {f for l in lines for f in l.rsplit(" ", 1)[0].split(";")[:3]}
print("# comms with escapes: %s" % sorted(c for c in comms if "\\" in c or "|" in c))
sys.exit(0 if "\\xffx" in comms and "a|b\\x0bc" in comms else 1)
' "$TMP/profiles.json"
ok $? "the names arrive escaped: \\xffx, a|b\\x0bc"
"$PYTHON3" - "$TMP/out" <<'PY'
import glob, sys
n = 0
for f in glob.glob(sys.argv[1] + "/profile_*.col"):
    text = open(f, "rb").read().decode("utf-8")     # strict
    lines = text.splitlines()       # splits on \v, \f, \x1c-\x1e, U+2028...
    if lines != text.split("\n"):
        sys.exit(1)
    n += 1
sys.exit(0 if n >= 3 else 1)
PY
ok $? "local .col files: strict UTF-8, splitlines() finds no extra line"
done_testing

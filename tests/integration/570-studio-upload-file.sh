#!/bin/sh
# `gprofiler [options] upload-file --file-path F` sends an existing .col
# once: exit 0 when accepted (the server gets the file's text), 1 when not
# (missing file, refused, backend down), 2 for usage errors.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/integration/studio_lib.sh"
studio_init
studio_server srv

# A real .col from a one-cycle local run.
"$GP_BIN" --plugin-dir "$GP_PLUGIN_DIR" -d 1 $gp_cheap -o "$TMP/out" \
    --state-dir "$TMP/state" >"$TMP/local.log" 2>&1
col=$(ls "$TMP"/out/profile_*.col 2>/dev/null | head -n 1)
[ -n "$col" ] && head -c 3 "$col" | grep -q '^# {'
ok $? "a local run wrote a .col"

up() {
	"$GP_BIN" --plugin-dir "$GP_PLUGIN_DIR" --token "$STUDIO_TOKEN" \
	    --service-name "$STUDIO_SVC" --server-host "$SRV_URL" \
	    --spool-dir "$TMP/spool" --state-dir "$TMP/state" "$@"
}

sleep 2	# the upload must not be dated "now"
up upload-file --file-path "$col" >"$TMP/up1.log" 2>&1
ok $? "upload-file exits 0"
srv_py '
p = get("/_fake/profiles")
sys.exit(0 if len(p) == 1 and p[0]["profile"] == open(sys.argv[1]).read() and
    p[0]["gpid_sent"] == "" and p[0]["service"] == sys.argv[2] else 1)
' "$col" "$STUDIO_SVC"
ok $? "the server got the file's text, the service and gpid \"\""
! grep -q "$STUDIO_TOKEN" "$TMP/up1.log"
ok $? "the token is not logged"
# Issue 11 #4: dated by the file's own window, not the upload time (the
# backend files a profile under its start_time).  The .col is from a run
# at least a couple of seconds before the upload.
srv_py '
import datetime
p = get("/_fake/profiles")[0]
h = p["header"]
def utc(s):
    return datetime.datetime.fromisoformat(s)
print("# header %s..%s, upload %s..%s" % (h["start_time"], h["end_time"],
    p["start_time"], p["end_time"]))
ok = (p["start_time"] == h["start_time"][:19] and
      p["end_time"] == h["end_time"][:19] and
      utc(p["start_time"]) < utc(p["end_time"]) and
      (datetime.datetime.utcfromtimestamp(p["received"]) -
       utc(p["end_time"])).total_seconds() >= 1.5)
sys.exit(0 if ok else 1)
'
ok $? "the upload is dated by the header's start_time and end_time"

{ cat "$col"; printf '\n\n'; } >"$TMP/nl.col"
up upload-file --file-path="$TMP/nl.col" >"$TMP/up2.log" 2>&1 &&
    srv_py 'p = get("/_fake/profiles")
sys.exit(0 if len(p) == 2 and p[1]["profile"] == open(sys.argv[1]).read() else 1)' "$col"
ok $? "--file-path=F; trailing newlines of a copied file are dropped"

up upload-file --file-path "$TMP/missing.col" >"$TMP/up3.log" 2>&1
[ $? -eq 1 ] && grep -q "missing.col" "$TMP/up3.log"
ok $? "a missing file: exit 1 naming it"

up upload-file >/dev/null 2>&1
[ $? -eq 2 ]
ok $? "no --file-path: exit 2"

# gProfiler's own files carry only metadata.current_time: dated by it.
"$PY" -c '
import json, sys
t = open(sys.argv[1]).read()
line, nl, rest = t.partition("\n")
h = json.loads(line[1:])
del h["start_time"], h["end_time"]
h["metadata"]["current_time"] = "2024-03-04T05:06:07"
open(sys.argv[2], "w").write("# " + json.dumps(h) + nl + rest)
' "$col" "$TMP/gp.col"
up upload-file --file-path "$TMP/gp.col" >"$TMP/up6.log" 2>&1
srv_py '
p = get("/_fake/profiles")
sys.exit(0 if len(p) == 3 and p[2]["start_time"] == "2024-03-04T05:06:07" and
    p[2]["end_time"] == "2024-03-04T05:06:07" else 1)' &&
    grep -q "filed under that time" "$TMP/up6.log"
ok $? "a gProfiler header (current_time only): filed under its current_time"

printf ';a;b 1\n' >"$TMP/nohdr.col"
up upload-file --file-path "$TMP/nohdr.col" >"$TMP/up4.log" 2>&1
[ $? -eq 1 ] && grep -q "Failed to parse v2 metadata" "$TMP/up4.log"
ok $? "a file without a header: refused, exit 1, the server's message logged"
[ "$(srv_nprofiles)" -eq 3 ]
ok $? "the server accepted nothing else"

studio_stop_server srv
start=$(date +%s)
up upload-file --file-path "$col" >"$TMP/up5.log" 2>&1
rc=$?
[ $rc -eq 1 ] && [ $(($(date +%s) - start)) -lt 30 ]
ok $? "backend down: exit 1 without hanging (rc $rc)"

done_testing

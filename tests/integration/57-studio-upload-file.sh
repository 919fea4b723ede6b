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

printf ';a;b 1\n' >"$TMP/nohdr.col"
up upload-file --file-path "$TMP/nohdr.col" >"$TMP/up4.log" 2>&1
[ $? -eq 1 ] && grep -q "Failed to parse v2 metadata" "$TMP/up4.log"
ok $? "a file without a header: refused, exit 1, the server's message logged"
[ "$(srv_nprofiles)" -eq 2 ]
ok $? "the server accepted nothing else"

studio_stop_server srv
start=$(date +%s)
up upload-file --file-path "$col" >"$TMP/up5.log" 2>&1
rc=$?
[ $rc -eq 1 ] && [ $(($(date +%s) - start)) -lt 30 ]
ok $? "backend down: exit 1 without hanging (rc $rc)"

done_testing

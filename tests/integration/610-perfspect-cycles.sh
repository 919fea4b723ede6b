#!/bin/sh
# The perfspect plugin in the real daemon with the fake perfspect: every
# cycle's header carries its own hwmetrics and htmlblob; a failing or hung
# PerfSpect gives null and leaves CPU profiling alone.
. "$top_srcdir/tests/tap.sh"
tap_tmpdir; [ -n "$KEEP" ] && trap - EXIT
[ "$(uname -m)" = x86_64 ] || skip_all "PerfSpect options are x86_64 only"
# A fifth of PerfSpect's timing, so 5 s cycles hold rows.  At real timing
# (7 s of set-up) they hold none.  The real-speed siblings:
#   tests/integration/640-perfspect-realtime.sh: 20 s and 60 s cycles (and
#     -d 5 for the warning that says so), the private directory removed
#     at exit;
#   tests/integration/690-perfspect-failures-realtime.sh: the failure
#     modes below at real timing.
export FAKE_PERFSPECT_SCALE=0.2
PS_CYCLE=5
. "$top_srcdir/tests/perfspect_lib.sh"

run normal 19
headers normal >"$TMP/normal.json"
n=$(wc -l <"$TMP/normal.json")
test "$n" -ge 3
ok $? "multi-cycle run wrote $n profiles"
"$PYTHON3" - "$TMP/normal.json" <<'PY'
import json, sys
hs = [json.loads(l) for l in open(sys.argv[1])]
assert all(h["has_keys"] for h in hs)
assert all(h["status"] == "ok" for h in hs), [h["status"] for h in hs]
cpi = [h["hw"]["CPI"] for h in hs]
assert all(isinstance(v, str) and float(v) > 0 for v in cpi)
assert len(set(json.dumps(h["hw"], sort_keys=True) for h in hs)) == len(hs)
assert "TMA_......MEM_Bandwidth(%)" in hs[0]["hw"]
assert all("<title>PerfSpect Metrics:" in h["html"] for h in hs)
# the HTML table holds the very means of the summary
assert all(("<td>CPI</td><td>%s</td>" % h["hw"]["CPI"]) in h["html"] for h in hs)
PY
ok $? "every cycle: its own hwmetrics (strings), htmlblob gunzips to the report"
ls /tmp/gprofiler-perfspect.* >/dev/null 2>&1
test $? -ne 0 || ! grep -q "gprofiler-perfspect" "$TMP/normal.log" || \
    ! ls -d $(grep -o '/tmp/gprofiler-perfspect\.[A-Za-z0-9]*' "$TMP/normal.log" | head -1) 2>/dev/null
ok $? "private output directory removed at exit"

FAKE_PERFSPECT_MODE=nan run nan 12
headers nan | "$PYTHON3" -c '
import json, sys
hs = [json.loads(l) for l in sys.stdin]
assert hs and all(h["hw"]["TMA_......MEM_Bandwidth(%)"] == "NaN" for h in hs)'
ok $? "NaN metric kept as the string NaN"

FAKE_PERFSPECT_MODE=noroot run noroot 12
headers noroot | "$PYTHON3" -c '
import json, sys
hs = [json.loads(l) for l in sys.stdin]
assert len(hs) >= 2
assert all(h["has_keys"] and h["hw"] is None and h["html"] is None for h in hs)
assert hs[0]["status"] == "failed" and "no targets remain" in hs[0]["error"]
assert all(h["stacks"] > 0 for h in hs)'
ok $? "failing PerfSpect: null metrics, error in the header, stacks still there"
grep -q "no targets remain" "$TMP/noroot.log"
ok $? "failing PerfSpect: logged with its stderr"

FAKE_PERFSPECT_MODE=hang run hang 19
headers hang | "$PYTHON3" -c '
import json, sys
hs = [json.loads(l) for l in sys.stdin]
assert len(hs) >= 2, len(hs)
assert all(h["hw"] is None and h["stacks"] > 0 for h in hs)
assert any(h["status"] in ("failed", "backoff") for h in hs)'
ok $? "hung PerfSpect: killed after the grace, cycles go on"

FAKE_PERFSPECT_STARTUP=100 run slow 12
headers slow | "$PYTHON3" -c '
import json, sys
hs = [json.loads(l) for l in sys.stdin]
assert len(hs) >= 2
assert all(h["hw"] is None and h["status"] == "not_ready" for h in hs)'
ok $? "slow start: cycles not stalled, header says not_ready"

mkdir -p "$TMP/off"
timeout -s TERM 8 "$GP_BIN" --plugin-dir "$GP_PLUGIN_DIR" -o "$TMP/off" -d 5 -c \
    >"$TMP/off.log" 2>&1
f=$(ls "$TMP/off"/profile_*.col | head -1)
head -1 "$f" | "$PYTHON3" -c '
import json, sys
h = json.loads(sys.stdin.readline()[2:])
assert "perfspect_status" not in h["metadata"]
assert h.get("hwmetrics") is None'
ok $? "disabled: the plugin adds nothing"
done_testing

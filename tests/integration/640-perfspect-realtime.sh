#!/bin/sh
# Slow tier (make check-slow): the perfspect plugin against the fake at its
# realistic default timing (FAKE_PERFSPECT_SCALE=1, 7 s of set-up before
# collection, 5 s rows), as a user runs it.  610-perfspect-cycles.sh covers
# the same paths with compressed time; this one is the real-time check
# beside it.  At -d 20 every cycle after the first carries hwmetrics and
# htmlblob computed from rows of its own window; at the default -d 60 every
# cycle does.
. "$top_srcdir/tests/tap.sh"
tap_tmpdir; [ -n "$KEEP" ] && trap - EXIT
F="$top_srcdir/tests/fakes/fake_perfspect"
[ "$(uname -m)" = x86_64 ] || skip_all "PerfSpect options are x86_64 only"
unset FAKE_PERFSPECT_SCALE FAKE_PERFSPECT_STARTUP FAKE_PERFSPECT_MODE

# run NAME SECONDS [options]: a continuous run at real timing
run() {
	name=$1 secs=$2; shift 2
	mkdir -p "$TMP/$name"
	for try in 1 2 3 4 5 6 7 8 9 10; do
		timeout -s TERM "$secs" "$GP_BIN" --plugin-dir "$GP_PLUGIN_DIR" \
		    -o "$TMP/$name" -c -v --perfspect-path "$F" \
		    --enable-hw-metrics-collection=true "$@" >"$TMP/$name.log" 2>&1
		grep -q "already running" "$TMP/$name.log" || break
		sleep 3
	done
}

# check NAME FIRST MIN: the cycles' headers, one line each on stdout; every
# cycle from index FIRST on must carry metrics of its own window; at least
# MIN cycles.
check() {
	"$PYTHON3" - "$TMP/$1" "$2" "$3" <<'PY'
import base64, datetime, glob, gzip, json, sys
d, first, least = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
def ts(s):
    return datetime.datetime.strptime(s, "%Y-%m-%dT%H:%M:%S.%f").replace(
        tzinfo=datetime.timezone.utc).timestamp()
hs = []
for p in sorted(glob.glob(d + "/profile_*.col")):
    h = json.loads(open(p).readline()[2:])
    m = h["metadata"]
    row = {"start": h["start_time"], "end": h["end_time"],
           "status": m.get("perfspect_status"),
           "rows": m.get("perfspect_rows"),
           "interval": m.get("perfspect_interval"),
           "setup_s": m.get("perfspect_setup_seconds"),
           "first_row_ts": m.get("perfspect_first_row_ts"),
           "last_row_ts": m.get("perfspect_last_row_ts"),
           "CPI": (h["hwmetrics"] or {}).get("CPI"),
           "htmlblob_bytes": len(h["htmlblob"] or ""),
           "error": m.get("perfspect_error")}
    print("# " + json.dumps(row))
    hs.append((h, row))
assert len(hs) >= least, "%d cycles, wanted %d" % (len(hs), least)
seen = set()
for i, (h, r) in enumerate(hs):
    assert "hwmetrics" in h and "htmlblob" in h, "cycle %d: keys" % i
    if i < first:
        continue
    assert r["status"] == "ok", "cycle %d: %s" % (i, r)
    assert isinstance(r["CPI"], str) and float(r["CPI"]) > 0, r
    html = gzip.decompress(base64.b64decode(h["htmlblob"], validate=True))
    assert ("<td>CPI</td><td>%s</td>" % r["CPI"]).encode() in html, \
        "cycle %d: the HTML is the report of these means" % i
    # Its own window: each row covers the interval before its TS (whole
    # seconds, hence the 1 s of slack).
    lo, hi = ts(r["start"]), ts(r["end"])
    assert r["first_row_ts"] - r["interval"] >= lo - 1.0, \
        "cycle %d: rows from before its window: %s" % (i, r)
    assert r["last_row_ts"] <= hi + 1.0, \
        "cycle %d: rows from after its window: %s" % (i, r)
    key = json.dumps(h["hwmetrics"], sort_keys=True)
    assert key not in seen, "cycle %d repeats an earlier cycle's values" % i
    seen.add(key)
PY
}

# -d 20: ~4 cycles in 88 s.
run d20 88 -d 20
check d20 1 3 >"$TMP/d20.out" 2>&1
ok $? "-d 20 at real timing: every cycle after the first has its own hwmetrics and htmlblob"
cat "$TMP/d20.out"
grep -q "no snapshot within the cycle's bound" "$TMP/d20.log"
test $? -ne 0
ok $? "-d 20: no cycle abandons PerfSpect's snapshot"

# -d 5 is shorter than the set-up: no cycle can carry metrics, and the
# agent says so once, with the cycle length that would.
run d5 26 -d 5
grep -c "does not fit in the .* a cycle gives each run" "$TMP/d5.log" |
    grep -qx 1
ok $? "-d 5 at real timing: one WARN line says no cycle will carry metrics and names -d 20"

# The default -d 60: 3 cycles in 195 s, all of them with metrics.
run d60 195
check d60 0 3 >"$TMP/d60.out" 2>&1
ok $? "default -d 60 at real timing: every cycle, the first included, has its own hwmetrics and htmlblob"
cat "$TMP/d60.out"
# Stopped by timeout(1), which signals the agent and then its process group:
# one stop, that waits for PerfSpect and removes its private directory
# (610-perfspect-cycles.sh checks it with compressed time).
d=$(grep -o '/tmp/gprofiler-perfspect\.[A-Za-z0-9]*' "$TMP/d60.log" | head -1)
[ -n "$d" ] && ! test -e "$d" && ! grep -q "exiting now" "$TMP/d60.log"
ok $? "default -d 60 at real timing: private output directory removed at exit"

done_testing

# Helpers of the perfspect cycle tests (61 with compressed time, 69 at real
# time); source after tests/tap.sh and tap_tmpdir.  PS_CYCLE is the cycle
# length in seconds (-d).

F="$top_srcdir/tests/fakes/fake_perfspect"
# Children get a minimal environment: pass the fake its switches.
export GPROFILER_CHILD_ENV="FAKE_PERFSPECT_*"

# run NAME SECONDS [extra options]: a continuous run of PS_CYCLE s cycles
run() {
	name=$1 secs=$2; shift 2
	mkdir -p "$TMP/$name"
	for try in 1 2 3 4 5 6 7 8 9 10; do
		timeout -s TERM "$secs" "$GP_BIN" --plugin-dir "$GP_PLUGIN_DIR" \
		    -o "$TMP/$name" -d "$PS_CYCLE" -c -v --perfspect-path "$F" \
		    --enable-hw-metrics-collection=true "$@" >"$TMP/$name.log" 2>&1
		# another test's daemon holds the host lock: wait for it
		grep -q "already running" "$TMP/$name.log" || break
		sleep 3
	done
	ls "$TMP/$name"/profile_*.col 2>/dev/null | sort >"$TMP/$name.list"
}

# headers NAME: one JSON line per profile with what the tests look at
headers() {
	"$PYTHON3" - "$TMP/$1.list" <<'PY'
import base64, gzip, json, sys
for path in open(sys.argv[1]).read().split():
    line = open(path).readline()
    h = json.loads(line[2:])
    m = h["metadata"]
    blob = h.get("htmlblob")
    html = gzip.decompress(base64.b64decode(blob, validate=True)) if blob else None
    stacks = sum(1 for l in open(path) if not l.startswith("#"))
    print(json.dumps({"has_keys": "hwmetrics" in h and "htmlblob" in h,
        "hw": h.get("hwmetrics"), "html": html.decode() if html else None,
        "status": m.get("perfspect_status"), "error": m.get("perfspect_error"),
        "stacks": stacks}))
PY
}

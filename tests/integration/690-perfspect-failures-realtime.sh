#!/bin/sh
# Slow tier (make check-slow): 610-perfspect-cycles.sh's failure modes with
# the fake at PerfSpect's real timing (7 s of set-up, 5 s rows) and 20 s
# cycles, as a user meets them: a metric with no value, a PerfSpect that
# fails, one that hangs in its set-up, one whose set-up outlasts the
# cycles.  CPU profiling goes on through every one.
. "$top_srcdir/tests/tap.sh"
tap_tmpdir; [ -n "$KEEP" ] && trap - EXIT
[ "$(uname -m)" = x86_64 ] || skip_all "PerfSpect options are x86_64 only"
unset FAKE_PERFSPECT_SCALE FAKE_PERFSPECT_STARTUP FAKE_PERFSPECT_MODE
PS_CYCLE=20
. "$top_srcdir/tests/perfspect_lib.sh"

# Two whole cycles (the first may hold no row: 7 s of set-up).
FAKE_PERFSPECT_MODE=nan run nan 48
headers nan | "$PYTHON3" -c '
import json, sys
hs = [json.loads(l) for l in sys.stdin]
assert len(hs) >= 2, len(hs)
with_hw = [h for h in hs[1:] if h["hw"] is not None]
assert with_hw, [h["status"] for h in hs]
assert all(h["status"] == "ok" and
    h["hw"]["TMA_......MEM_Bandwidth(%)"] == "NaN" for h in with_hw)'
ok $? "NaN metric kept as the string NaN at real timing"

FAKE_PERFSPECT_MODE=noroot run noroot 48
headers noroot | "$PYTHON3" -c '
import json, sys
hs = [json.loads(l) for l in sys.stdin]
assert len(hs) >= 2, len(hs)
assert all(h["has_keys"] and h["hw"] is None and h["html"] is None for h in hs)
assert hs[0]["status"] == "failed" and "no targets remain" in hs[0]["error"]
assert all(h["stacks"] > 0 for h in hs)'
ok $? "failing PerfSpect at real timing: null metrics, error in the header, stacks still there"
grep -q "no targets remain" "$TMP/noroot.log"
ok $? "failing PerfSpect: logged with its stderr"

# The set-up never ends and SIGTERM is ignored: killed after the grace.
# Each cycle's profile waits for that kill (5 s), so the second is written
# 45 s after the start-up: 60 s leave the start-up 15 s on a loaded host
# (48 s once left 3 s, and the stop dropped the second cycle).
FAKE_PERFSPECT_MODE=hang run hang 60
headers hang | "$PYTHON3" -c '
import json, sys
hs = [json.loads(l) for l in sys.stdin]
assert len(hs) >= 2, len(hs)
assert all(h["hw"] is None and h["stacks"] > 0 for h in hs)
assert any(h["status"] in ("failed", "backoff") for h in hs), \
    [h["status"] for h in hs]'
ok $? "hung PerfSpect at real timing: killed after the grace, cycles go on"

# 100 s of set-up: no 20 s cycle waits for it.
FAKE_PERFSPECT_STARTUP=100 run slow 48
headers slow | "$PYTHON3" -c '
import json, sys
hs = [json.loads(l) for l in sys.stdin]
assert len(hs) >= 2, len(hs)
assert all(h["hw"] is None and h["status"] == "not_ready" and
    h["stacks"] > 0 for h in hs), [h["status"] for h in hs]'
ok $? "slow start at real timing: cycles not stalled, header says not_ready"
done_testing

#!/bin/sh
# perf plugin, frame pointers: a workload whose hot functions burn 50/30/20%
# of its CPU must show each with its caller chain and its share within ±3
# points; --pids restricts sampling to that process.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/workloads/perf_lib.sh"
perf_require
tap_tmpdir

# until killed after the profile (300 s at most): a fixed 60 s once ended
# inside the window of an ASan-built agent whose start the suite slowed (128
# samples of 500)
"$WL/perf_busy" -t 300 -j 2 &
busy=$!
"$WL/perf_busy" -t 300 &
other=$!
perf_wait_exec $busy perf_busy
perf_profile "$TMP/out" 8 profiling-frequency=997 pids=$busy
ok $? "plugin ran one cycle"
perf_want "$TMP/out" $busy 997 500
kill $busy $other 2>/dev/null; wait

cat >"$TMP/check.py" <<'PY'
import os, sys
stacks = [l.rsplit(' ', 1) for l in open(sys.argv[1]) if l.strip()]
def ok(c, what):
    print(("PASS " if c else "FAIL ") + what)
comms = {s.split(';', 1)[0] for s, c in stacks}
ok(comms == {'perf_busy'}, "--pids: only the workload (%s)" % sorted(comms))
total = sum(int(c) for s, c in stacks)
print("%d samples" % total)
want = int(os.environ["PERF_WANT"])
ok(total >= want, "enough samples (%d, want %d) at 997 Hz" % (total, want))
share = {}
chain_ok = {}
for s, c in stacks:
    user = [f for f in s.split(';')[1:] if not f.endswith('_[k]')]
    if not user:
        continue
    leaf = user[-1]
    if leaf == 'busy_note' and len(user) > 1:
        leaf = user[-2]
        user = user[:-1]
    share[leaf] = share.get(leaf, 0) + int(c)
    if leaf.startswith('hot_'):
        good = user[-3:-1] == ['busy_run', 'busy_round']
        chain_ok[leaf] = chain_ok.get(leaf, 0) + (int(c) if good else 0)
for fn, want in (('hot_fifty', 50), ('hot_thirty', 30), ('hot_twenty', 20)):
    got = 100.0 * share.get(fn, 0) / max(total, 1)
    print("%s %.1f%% (want %d%%)" % (fn, got, want))
    ok(abs(got - want) <= 3, "%s share %.1f within 3 points of %d" % (fn, got, want))
    ok(chain_ok.get(fn, 0) >= 0.98 * share.get(fn, 1),
       "%s called from busy_run;busy_round" % fn)
roots = {s.split(';')[1] for s, c in stacks if ';' in s}
print("roots: %s" % sorted(roots)[:5])
md = dict(l.strip().split('=', 1) for l in open(sys.argv[2]) if '=' in l)
ok(md.get('perf_dropped_samples') == '0', "no sample dropped")
ok(md.get('perf_too_large_samples') == '0',
   "records too large for the ring counted (none here)")
ok(int(md.get('perf_user_frames_symbolized', 0)) >= 0.98 * int(md.get('perf_user_frames', 1)),
   ">=98%% user frames symbolized (%s of %s)" % (md.get('perf_user_frames_symbolized'), md.get('perf_user_frames')))
PY
perf_check_py "$TMP/check.py" "$TMP/out" "$TMP/out.md"
done_testing

#!/bin/sh
# perf plugin, DWARF and smart modes: a workload built without frame
# pointers loses its callers with fp, keeps them with dwarf (libdw CFI over
# the copied stack), and smart mode picks dwarf for it; check() refuses
# -f above 100 with dwarf.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/workloads/perf_lib.sh"
perf_require
tap_tmpdir

"$PERF_HOST" "$PERF_SO" -d 1 -o perf-mode=dwarf -o profiling-frequency=101 \
    >/dev/null 2>"$TMP/err"
[ $? -eq 2 ] && grep -q 'profiling-frequency' "$TMP/err"
ok $? "dwarf with -f 101 is a usage error naming the option"

for mode in fp dwarf smart; do
	"$WL/perf_busy_nofp" -t 300 & b=$!	# until killed
	perf_wait_exec $b perf_busy_nofp
	perf_profile "$TMP/$mode" 3 profiling-frequency=99 perf-mode=$mode pids=$b
	ok $? "plugin ran in $mode mode"
	kill $b 2>/dev/null; wait
done

cat >"$TMP/check.py" <<'PY'
import sys
def ok(c, what):
    print(("PASS " if c else "FAIL ") + what)
def chains(path):
    ss = [l.rstrip('\n').rsplit(' ', 1) for l in open(path) if l.strip()]
    tot = sum(int(c) for s, c in ss)
    full = sum(int(c) for s, c in ss
               if 'main;busy_run;busy_round;hot_' in s)
    return tot, full
d = sys.argv[1]
res = {m: chains('%s/%s' % (d, m)) for m in ('fp', 'dwarf', 'smart')}
for m, (t, f) in res.items():
    print("%s: %d samples, %d with main;busy_run;busy_round;hot_*" % (m, t, f))
ok(res['fp'][0] > 0 and res['fp'][1] < 0.5 * res['fp'][0],
   "fp loses callers without frame pointers")
ok(res['dwarf'][0] > 0 and res['dwarf'][1] >= 0.8 * res['dwarf'][0],
   "dwarf recovers the full caller chain")
ok(res['smart'][0] > 0 and res['smart'][1] >= 0.8 * res['smart'][0],
   "smart keeps the deeper (dwarf) stacks")
md = dict(l.strip().split('=', 1) for l in open(d + '/smart.md') if '=' in l)
ok(md.get('perf_dwarf_pids') == '1', "smart chose dwarf for the one pid")
PY
perf_check_py "$TMP/check.py" "$TMP"
done_testing

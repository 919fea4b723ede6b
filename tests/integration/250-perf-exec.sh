#!/bin/sh
# perf plugin, fork + exec: a shell loop starting dozens of short busy
# programs a second (tests/workloads/exec_loop.sh).  Every sample must be
# charged to the program that ran when it was taken: the child's samples
# before its exec stay with bash, the new program's go to short_exec and
# resolve against its own maps even though it exits long before the cycle
# ends.  Measured against perf record -g on the same window: as many
# samples, as large a fraction with a named leaf, the same function shares.
. "$top_srcdir/tests/tap.sh"
skip_under_asan "named fractions and shares against perf"
. "$top_srcdir/tests/workloads/perf_lib.sh"
perf_require
tap_tmpdir
command -v perf >/dev/null || skip_all "perf (linux-perf) missing"

secs=8
"$top_srcdir/tests/workloads/exec_loop.sh" "$WL/short_exec" 30 \
    $((secs + 3)) 30 >/dev/null 2>&1 &
loop=$!
sleep 1
# The peer is not hardened: at its end perf record opens every file it saw
# mapped, and a hostile test running beside this one plants a FIFO as a
# perf map; perf then blocked CI for good.  --no-buildid keeps it from
# reading them, timeout bounds it (and perf script) whatever else it opens.
timeout 60 perf record --no-buildid -a -g -e cpu-clock -F 997 \
    -o "$TMP/perf.data" -- \
    sleep $secs >/dev/null 2>"$TMP/perf.err" &
rec=$!
# The perf plugin's loop alone: what is measured is its exec-aware
# symbolization, not the other plugins' share of the loop.
perf_profile "$TMP/out" $secs profiling-frequency=997 python-mode=disabled \
    java-mode=disabled
ok $? "plugin ran one cycle"
wait $rec
ok $? "perf record ran"
kill $loop 2>/dev/null; wait
timeout 120 perf script -i "$TMP/perf.data" >"$TMP/perf.txt" 2>/dev/null
ok $? "perf script ran"

"$PYTHON3" "$top_srcdir/bench/fidelity_report.py" --json \
    --perf-script "$TMP/perf.txt" --agent "$TMP/out" --comm short_exec \
    --funcs short_mid,short_leaf >"$TMP/report.json"
ok $? "report"
cat >"$TMP/check.py" <<'PY'
import json, os, sys
r = json.load(open(sys.argv[1]))
a, p = r['agent'], r['perf']
def ok(c, what):
    print(("PASS " if c else "FAIL ") + what)
print("agent: %s" % a)
print("perf:  %s" % p)
ok(p['samples'] >= 500, "perf saw the workload (%d samples)" % p['samples'])
# Both sample every CPU at 997 Hz: a program whose samples went to bash
# (or were lost with its exit) shows as a shortfall.
ok(a['samples'] >= 0.9 * p['samples'],
   "short_exec samples: agent %d, perf %d" % (a['samples'], p['samples']))
# The last instants of execve (after the mm and comm changed, before the
# exec event) return to the old image's execve: named from the parent's
# maps, as perf names them.  A program that exits before its maps are
# read is named from the kernel's mapping records, as perf names it.
# What may stay unnamed: a PLT stub (perf says "@plt").  The old per-PID
# symbolization named 85%, /proc alone 97.9-100% under load.
# Through perf events (290-perf-backends) exec is seen at its COMM record,
# before the kernel is done with it, when tracefs is not mounted: a known
# gap of 1.5-2.5 points on this exec storm, allowed there and no more.
slack = 0.03 if os.environ.get('PERF_TEST_BACKEND') == 'perf-events' else 0.01
ok(a['named'] >= p['named'] - slack,
   "named leaves: agent %.1f%%, perf %.1f%%" % (100 * a['named'],
                                               100 * p['named']))
for f in ('short_mid', 'short_leaf'):
    d = 100 * (a['share'][f] - p['share'][f])
    # ~2000 samples each: the two samplers' difference has an SD of ~1.4
    ok(abs(d) <= 4, "%s share: agent %.1f%%, perf %.1f%% (within 4 points)"
       % (f, 100 * a['share'][f], 100 * p['share'][f]))
PY
perf_check_py "$TMP/check.py" "$TMP/report.json"

# No image is charged to another: bash's stacks hold no short_exec
# function, short_exec's no bash one (its fork and exec stay with bash).
bad=$(grep -c '^bash;.*short_\(mid\|leaf\)' "$TMP/out")
check "bash charged no short_exec frame ($bad stacks)" test "$bad" = 0
bad=$(awk '/^short_exec;.*(_Fork|make_child|execute_command)/ { s += $NF }
    END { print s + 0 }' "$TMP/out")
tot=$(awk '/^short_exec;/ { s += $NF } END { print s + 0 }' "$TMP/out")
# Through perf events without tracefs, exec is seen at its COMM record (see
# the named-leaves check): samples at the boundary may go either way, more
# of them on a loaded host (CI: 3 stacks).  1% of the image's samples at
# most there; an image charged with its parent's maps would be most of them.
allow=0
[ "${PERF_TEST_BACKEND:-}" = perf-events ] && allow=$((tot / 100))
check "short_exec charged no bash frame ($bad of its $tot samples, $allow allowed)" \
    test "$bad" -le "$allow"
done_testing

#!/bin/sh
# perf plugin: processes that are hard to symbolize: a binary deleted while
# it runs, a binary visible only inside its own mount namespace, and
# processes that start and exit within one cycle.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/workloads/perf_lib.sh"
perf_require
tap_tmpdir
command -v unshare >/dev/null || skip_all "unshare(1) missing"

# deleted while running
cp "$WL/perf_busy" "$TMP/perf_busy_del"
"$TMP/perf_busy_del" -t 300 & del=$!	# until killed after the profile
perf_wait_exec $del perf_busy_del
rm -f "$TMP/perf_busy_del"

# own mount namespace, binary on a private tmpfs
mkdir -p "$TMP/ns"
unshare -m sh -c 'mount -t tmpfs none "$1" && cp "$2" "$1/perf_busy_ns" &&
    exec "$1/perf_busy_ns" -t 300' sh "$TMP/ns" "$WL/perf_busy" & ns=$!

# short-lived: runs of 0.3 s, one after the other, until the cycle is over
# (however long the agent takes to start)
( while [ ! -e "$TMP/stop" ]; do "$WL/perf_busy" -t 0.3; done ) &
short=$!

sleep 0.3
[ ! -e "$TMP/ns/perf_busy_ns" ]
ok $? "the namespaced binary is not visible from the host"
perf_profile "$TMP/out" 4 profiling-frequency=99
ok $? "plugin ran one cycle"
touch "$TMP/stop"
kill $del $ns 2>/dev/null
wait

cat >"$TMP/check.py" <<'PY'
import sys
stacks = [l.rstrip('\n').rsplit(' ', 1) for l in open(sys.argv[1]) if l.strip()]
def ok(c, what):
    print(("PASS " if c else "FAIL ") + what)
def check(comm, what, frac=0.9):
    ss = [(s.split(';')[1:], int(c)) for s, c in stacks if s.split(';')[0] == comm]
    tot = sum(c for f, c in ss)
    good = sum(c for f, c in ss if any(x.startswith('hot_') for x in f) and 'busy_round' in f)
    print("%s: %d samples, %d symbolized to hot_*" % (comm, tot, good))
    ok(tot > 0 and good >= frac * tot, what)
check('perf_busy_del', "deleted binary still symbolizes")
check('perf_busy_ns', "binary in another mount namespace symbolizes")
# short runs spend a larger part in the dynamic loader, before main
check('perf_busy', "short-lived processes attributed and symbolized", 0.75)
PY
perf_check_py "$TMP/check.py" "$TMP/out"
done_testing

#!/bin/sh
# Node.js through the perf plugin alone: node started with --perf-basic-prof
# --interpreted-frames-native-stack writes /tmp/perf-PID.map itself, and perf
# names its JS functions `_[j]`.  Control: the same workload without the
# flags has no JS names.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/integration/java_lib.sh"
jv_require
NODE=$(command -v node) || skip_all "node missing"
tap_tmpdir

# From the temporary directory: V8 may leave an isolate-*-v8.log in its cwd.
(cd "$TMP" && exec "$NODE" --perf-basic-prof --interpreted-frames-native-stack \
    "$top_srcdir/tests/workloads/node_busy.js" 20) >/dev/null 2>&1 & npid=$!
(cd "$TMP" && exec "$NODE" "$top_srcdir/tests/workloads/node_busy.js" 20) \
    >/dev/null 2>&1 & cpid=$!
trap 'kill $npid $cpid 2>/dev/null; rm -rf "$TMP" /tmp/perf-$npid.map' EXIT
sleep 1.5
[ -s "/tmp/perf-$npid.map" ]
ok $? "node wrote its perf map"
[ ! -e "/tmp/perf-$cpid.map" ]
ok $? "node without the flags wrote none"

jv_profile "$TMP/out" 6 $npid,$cpid
ok $? "daemon ran one cycle"

cat >"$TMP/check.py" <<'PY'
import sys
lines = open(sys.argv[1] + '/last_profile.col', encoding='utf-8').read().splitlines()[1:]
st = [(l.rsplit(' ', 1)[0].split(';'), int(l.rsplit(' ', 1)[1])) for l in lines]
def ok(c, what):
    print(("PASS " if c else "FAIL ") + what)
node = [(f, c) for f, c in st if len(f) > 2 and f[2] == 'node']
tot = sum(c for f, c in node)
hot = sum(c for f, c in node
          if any('hotNodeWork' in x and x.endswith('_[j]') for x in f))
outer = sum(c for f, c in node
            if any('hotNodeOuter' in x and x.endswith('_[j]') for x in f) and
            any('hotNodeWork' in x for x in f))
ex = [x for f, c in node for x in f if 'hotNodeWork' in x][:1]
print("# node: %d samples, %d in hotNodeWork _[j], %d under hotNodeOuter; e.g. %s"
      % (tot, hot, outer, ex))
ok(tot > 0, "perf sampled node")
# Both nodes are "node": judge the flagged one by its JIT-named samples
# (the other has none), so CPU sharing between the two does not matter.
jit = sum(c for f, c in node if any(x.endswith('_[j]') for x in f))
# (the rest are V8 builtins and trampolines, more of them under load).
ok(jit > 0 and hot >= 5 and hot >= 0.3 * jit,
   "hotNodeWork is named with _[j] (%d of %d JIT samples)" % (hot, jit))
ok(outer > 0, "frame pointers walk JS frames: hotNodeOuter above hotNodeWork")
if hot < 5:
    # What the stacks were instead: the heaviest node stacks, leaf last.
    for f, c in sorted(node, key=lambda x: -x[1])[:6]:
        print("# %d %s" % (c, ";".join(f[2:])[-300:]))
PY
jv_check_py "$TMP/check.py" "$TMP/out"
if ! grep -q 'hotNodeWork[^;]*_\[j\]' "$TMP/out/last_profile.col" 2>/dev/null
then
	diag "the agent's log (perf maps, symbolizer):"
	grep -iE 'perf map|symboliz|warn' "$TMP/out/daemon.log" | head -20 |
	    while IFS= read -r l; do diag "$l"; done
	ls -l "/tmp/perf-$npid.map" 2>&1 | while IFS= read -r l; do diag "$l"; done
fi
done_testing

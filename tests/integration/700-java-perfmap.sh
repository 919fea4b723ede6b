#!/bin/sh
# java plugin: a JVM run with -XX:+PreserveFramePointer, profiled by the
# real daemon, shows its JIT-compiled methods as `_[j]` frames (named from
# the perf map the plugin asked it to write), its appid (with
# --app-id-args-filter) and java_version / jvm_flags metadata.  Control:
# the same JVM with --java-mode disabled and no map has no method names.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/integration/java_lib.sh"
jv_require
command -v jattach >/dev/null || skip_all "jattach missing"
tap_tmpdir
jv_compile

java -XX:+PreserveFramePointer -Dservice=gptest -cp "$TMP/classes" HotLoop 30 \
    >"$TMP/java.out" 2>&1 & jpid=$!
trap 'kill $jpid 2>/dev/null; rm -rf "$TMP" "/tmp/perf-$jpid.map"' EXIT
jv_wait_jit $jpid
rm -f "/tmp/perf-$jpid.map"

jv_profile "$TMP/on" 9 $jpid --app-id-args-filter '^-Dservice='
ok $? "daemon ran one cycle with the java plugin"
grep -q 'HotLoop' "/tmp/perf-$jpid.map" 2>/dev/null
ok $? "the JVM wrote its perf map on request"
grep -i 'java:' "$TMP/on/daemon.log" | sed 's/^/# /'

rm -f "/tmp/perf-$jpid.map"
jv_profile "$TMP/off" 5 $jpid --java-mode disabled
ok $? "daemon ran with --java-mode disabled"
# Other agents on a shared host (their java plugin) may write the map too:
# then the control proves nothing and is skipped.
control=1
if [ -e "/tmp/perf-$jpid.map" ]; then
	control=0
	ok 0 "control # SKIP another agent wrote /tmp/perf-$jpid.map meanwhile"
fi
kill -0 $jpid
ok $? "the JVM survived being attached"

# --java-collect-thread-names: async-profiler's thread frame under the
# process's comm, "java;[hot-worker tid=N];...", N a thread of the JVM.
java -XX:+PreserveFramePointer -cp "$TMP/classes" HotLoop 30 thread \
    >"$TMP/java2.out" 2>&1 & jpid2=$!
trap 'kill $jpid $jpid2 2>/dev/null; rm -rf "$TMP" "/tmp/perf-$jpid.map" "/tmp/perf-$jpid2.map"' EXIT
jv_wait_jit $jpid2
jv_profile "$TMP/thr" 4 $jpid2 -f 49 --java-collect-thread-names
ok $? "daemon ran with --java-collect-thread-names"
ls /proc/$jpid2/task >"$TMP/tids" 2>/dev/null
! grep -q 'java-collect-thread-names' "$TMP/thr/daemon.log"
ok $? "the flag is not named as having no effect"

cat >"$TMP/check.py" <<'PY'
import json, re, sys
def load(path):
    lines = open(path, encoding='utf-8').read().splitlines()
    hdr = json.loads(lines[0][1:])
    stacks = []
    for l in lines[1:]:
        s, c = l.rsplit(' ', 1)
        stacks.append((s.split(';'), int(c)))
    return hdr, stacks
def ok(c, what):
    print(("PASS " if c else "FAIL ") + what)
hdr, st = load(sys.argv[1] + '/last_profile.col')
java = [(f, c) for f, c in st if len(f) > 2 and f[2] == 'java']
tot = sum(c for f, c in java)
jit = re.compile(r'HotLoop\.(spin|mix)\(long\)_\[j\]$')
named = sum(c for f, c in java if any(jit.search(x) for x in f))
print("# java: %d samples, %d with a HotLoop _[j] frame" % (tot, named))
ok(tot > 0, "perf sampled the JVM")
ok(named >= 0.5 * tot, "most JVM samples name HotLoop methods with _[j]")
deep = [f for f, c in java if any(jit.search(x) for x in f)]
ok(any(any(x.startswith('JavaMain') for x in f) for f in deep),
   "PreserveFramePointer: JIT frames sit under the JVM's native frames")
appid = 'appid: java: HotLoop (-Dservice=gptest)'
ok(all(len(f) > 3 and f[3] == appid for f, c in java),
   "every JVM stack has the appid frame with the filtered argument")
md = [m for m in hdr.get('application_metadata', []) if m and 'java_version' in m]
ok(len(md) == 1 and md[0]['java_version'].startswith('OpenJDK') and
   '17.' in md[0]['java_version'], "java_version from VM.version")
ok(len(md) == 1 and '-XX:+PreserveFramePointer' in (md[0].get('jvm_flags') or ''),
   "jvm_flags from VM.flags")
if sys.argv[3] == '1':
    hdr, st = load(sys.argv[2] + '/last_profile.col')
    java = [(f, c) for f, c in st if len(f) > 2 and f[2] == 'java']
    print("# control: %d JVM samples" % sum(c for f, c in java))
    ok(sum(c for f, c in java) > 0 and
       not any('HotLoop' in x for f, c in java for x in f),
       "control: without the plugin's map no method is named")
PY
cat >>"$TMP/check.py" <<'PY'
hdr0, st0 = load(sys.argv[1] + '/last_profile.col')
hdr, st = load(sys.argv[4] + '/last_profile.col')
tids = set(open(sys.argv[5]).read().split())
mine = st   # --pids: the JVM's stacks only
tot = sum(c for f, c in mine)
thr = re.compile(r'^\[(.*) tid=(\d+)\]$')
def first(f):
    # the first frame after the comm and the appid frame
    rest = [x for x in f[3:] if not x.startswith('appid: ')]
    return thr.match(rest[0]) if rest else None
framed = [(f, c) for f, c in mine if first(f)]
hot = sum(c for f, c in framed if first(f).group(1) == 'hot-worker'
          and first(f).group(2) in tids)
print("# threads: %d JVM samples, %d with a thread frame, %d hot-worker"
      % (tot, sum(c for f, c in framed), hot))
ok(tot > 0 and all(f[2] == 'java' for f, c in mine),
   "thread names: the comm frame is the process's (java)")
ok(sum(c for f, c in framed) == tot,
   "thread names: every JVM stack starts with a [name tid=N] frame")
ok(hot >= 0.5 * tot, "thread names: most samples in [hot-worker tid=N], "
   "N a thread of the JVM")
ok(not any(first(f) for f, c in st0),
   "without the flag: no thread frame, the comm is the thread's")
PY
kill $jpid2 2>/dev/null
jv_check_py "$TMP/check.py" "$TMP/on" "$TMP/off" $control "$TMP/thr" \
    "$TMP/tids"
done_testing

#!/bin/sh
# Ruby plugin on a real Ruby (Debian 12's ruby 3.1): a script whose CPU
# goes 2/3 to hot_a and 1/3 to hot_b (tests/workloads/ruby_hot.rb: equal
# chunks of work, each given to hot_a with probability 2/3), profiled for one
# 5 s cycle at 499 Hz with the default --ruby-mode (rbspy, as gProfiler's).
# Frames must be gProfiler's rbspy frames, "hot_a (/path/ruby_hot.rb:N)_[rb]"
# (N a line inside hot_a: the line executing) under
# "<main> (/path/ruby_hot.rb:M)_[rb]", gProfiler's Ruby appid
# "appid: ruby: /path/ruby_hot.rb (/path/ruby_hot.rb)" and the comm; hot_a's
# share within 5 points of 66.7 (not under ASan: it would measure ASan).
# A second Ruby process exits in the middle of the cycle; three busy
# threads beside a sleeping main thread have their frames under "block in
# <main>"; --ruby-mode disabled, none and --no-ruby give no Ruby frames.  A
# libruby whose ruby_version says 2.6 is
# refused with one log line and one skipped frame, in the first cycle.
. "$top_srcdir/tests/tap.sh"
[ "$(id -u)" -eq 0 ] || skip_all "needs root"
[ -x "$GP_BIN" ] || skip_all "no daemon"
command -v ruby >/dev/null 2>&1 || skip_all "no ruby (apt-get install ruby)"
tap_tmpdir
# Ruby names the script by the path it was given: give the real one.
wl=$(realpath "$top_srcdir/tests/workloads/ruby_hot.rb")
a0=$(grep -n '^def hot_a' "$wl" | cut -d: -f1)
b0=$(grep -n '^def hot_b' "$wl" | cut -d: -f1)

profile() {
	out=$1; secs=$2; shift 2
	mkdir -p "$out"
	GPROFILER_LOCK_NAME="gptest-ruby-$$" "$GP_BIN" --plugin-dir \
	    "$GP_PLUGIN_DIR" -o "$out" -d "$secs" --no-flamegraph "$@" \
	    >"$out/log" 2>&1
}

wait_ready() {
	i=0
	while [ ! -s "$1" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
	[ -s "$1" ]
}

ruby "$wl" 30 "$TMP/ready" >/dev/null 2>&1 &
hot=$!
trap 'kill $hot $short $agent $thrpid $cfpid 2>/dev/null; rm -rf "$TMP"' EXIT
wait_ready "$TMP/ready"
ok $? "workload ready"
# Exits about 2 s into the 5 s cycle, while it is being sampled.
ruby "$wl" 3 "$TMP/ready.short" >/dev/null 2>&1 &
short=$!
profile "$TMP/on" 5 -f 499 --pids "$hot,$short"
ok $? "daemon ran one cycle (exit 0)"
col=$(ls "$TMP"/on/profile_*.col 2>/dev/null | head -1)
[ -n "$col" ]
ok $? "a profile was written"
wait $short
ok $? "the short Ruby process exited during the cycle"
grep -q "sampling Ruby at 499 Hz" "$TMP/on/log"
ok $? "the Ruby plugin sampled (by default, as gProfiler's rbspy)"

# Frames as gProfiler writes rbspy's, under the comm; the line is one of
# the method's own.
tail -n +2 "$col" | "$PYTHON3" -c '
import re, sys
wl, a0, b0 = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
pat = re.compile(r"^(hot_[ab]) \((.*):(\d+)\)_\[rb\]$")
main = re.compile(r"^<main> \((.*):(\d+)\)_\[rb\]$")
a = b = bad = nested = 0
for line in sys.stdin:
    st, _, n = line.rstrip("\n").rpartition(" ")
    fr = st.split(";")
    hit = None
    for i, f in enumerate(fr):
        m = pat.match(f)
        if not m:
            continue
        start = a0 if m.group(1) == "hot_a" else b0
        if m.group(2) != wl or not start < int(m.group(3)) < start + 9:
            bad += 1
        elif i >= 1 and main.match(fr[i - 1]) and \
            main.match(fr[i - 1]).group(1) == wl and \
            (re.match(r"ruby", fr[i - 2]) or
             (fr[i - 2].startswith("appid: ruby: ") and
              re.match(r"ruby", fr[i - 3]))):
            nested += 1
        hit = m.group(1)
    if hit == "hot_a":
        a += int(n)
    elif hit == "hot_b":
        b += int(n)
print("%s hot_a and hot_b frames name the script and a line of the "
      "method, under <main> and the comm (%d stacks, %d wrong)"
      % ("ok" if nested > 0 and bad == 0 else "not ok", nested, bad))
got = 100.0 * a / max(a + b, 1)
print("# hot_a %d, hot_b %d samples: %.1f%% (truth 66.7%%)" % (a, b, got))
print("%s hot_a share %.1f%% within 5 points of 66.7%% (%d samples)"
      % ("ok" if abs(got - 66.7) <= 5 and a + b >= 300 else "not ok", got,
         a + b))
' "$wl" "$a0" "$b0" >"$TMP/res"
grep '^#' "$TMP/res"
sed -n 1p "$TMP/res" | grep -q '^ok '
ok $? "$(sed -n 1p "$TMP/res" | sed 's/^\(not \)*ok //')"
if [ -n "${GP_ASAN:-}" ]; then
	skip "hot_a share" "under ASan: the share would measure ASan"
else
	grep -v '^#' "$TMP/res" | sed -n 2p | grep -q '^ok '
	ok $? "$(grep -v '^#' "$TMP/res" | sed -n 2p | sed 's/^\(not \)*ok //')"
fi
grep -q "hot_a ($wl:[0-9]*)_\[rb\]" "$col"
ok $? "a frame \"hot_a ($wl:N)_[rb]\""
head -1 "$col" | grep -q '"ruby_version": "ruby 3\.[0-9]*\.[0-9]*p[0-9]* ' &&
    head -1 "$col" | grep -q '"libruby_elfid": "buildid:[0-9a-f]*"' &&
    head -1 "$col" | grep -q '"exe_elfid": "buildid:[0-9a-f]*"'
ok $? "app metadata: ruby_version, libruby_elfid, exe_elfid"
grep -q ";ruby[0-9.]*;appid: ruby: $wl ($wl);<main> (" "$col"
ok $? "appid frame \"appid: ruby: $wl ($wl)\" after the comm"

# Threads: the one holding the GVL is sampled, under its thread block;
# the main thread sleeps (no GVL) and is not.
thr=$(realpath "$top_srcdir/tests/workloads/ruby_threads.rb")
ruby "$thr" 30 "$TMP/ready.thr" >/dev/null 2>&1 &
thrpid=$!
wait_ready "$TMP/ready.thr"
ok $? "threads workload ready"
profile "$TMP/thr" 3 -f 100 --pids "$thrpid"
ok $? "daemon ran with the threads workload"
kill $thrpid 2>/dev/null
col=$(ls "$TMP"/thr/profile_*.col 2>/dev/null | head -1)
tail -n +2 "$col" | "$PYTHON3" -c '
import re, sys
thr = sys.argv[1]
w = other = 0
pat = re.compile(r";block in <main> \(%s:\d+\)_\[rb\];(.*;)?worker_spin "
                 r"\(%s:\d+\)_\[rb\] (\d+)$" % (re.escape(thr), re.escape(thr)))
for line in sys.stdin:
    m = pat.search(line.rstrip("\n"))
    if m:
        w += int(m.group(2))
    elif "_[rb]" in line:
        other += int(line.rsplit(" ", 1)[1])
print("# %d samples in worker threads, %d elsewhere" % (w, other))
sys.exit(0 if w >= 50 and other * 10 <= w else 1)
' "$thr" >"$TMP/thr.res"
rc=$?
cat "$TMP/thr.res"
ok $rc "worker_spin under \"block in <main>\": the running thread, not the sleeping main one"

# C functions by name, as rbspy names them: the global symbol table is
# found from rb_id2str's code in a libruby that does not export it.
cf=$(realpath "$top_srcdir/tests/workloads/ruby_cfunc.rb")
ruby "$cf" 30 "$TMP/ready.cf" >/dev/null 2>&1 &
cfpid=$!
wait_ready "$TMP/ready.cf"
ok $? "C function workload ready"
profile "$TMP/cf" 3 -f 299 --pids "$cfpid"
ok $? "daemon ran with the C function workload"
kill $cfpid 2>/dev/null
col=$(ls "$TMP"/cf/profile_*.col 2>/dev/null | head -1)
tail -n +2 "$col" | "$PYTHON3" -c '
import re, sys
cf = sys.argv[1]
inside = total = 0
pat = re.compile(r";sort_hot \(%s:\d+\)_\[rb\];sort \[c function\] "
                 r"\(\(unknown\):0\)_\[rb\] (\d+)$" % re.escape(cf))
for line in sys.stdin:
    if "_[rb]" not in line:
        continue
    n = int(line.rsplit(" ", 1)[1])
    total += n
    if pat.search(line.rstrip("\n")):
        inside += n
print("# %d of %d samples in sort under sort_hot" % (inside, total))
sys.exit(0 if total >= 50 and inside * 10 >= total * 8 else 1)
' "$cf" >"$TMP/cf.res"
rc=$?
cat "$TMP/cf.res"
ok $rc "\"sort [c function] ((unknown):0)_[rb]\" under sort_hot: 80% of its samples at least"

for mode in "--ruby-mode disabled" "--ruby-mode none" "--no-ruby"; do
	rm -rf "$TMP/off"
	# shellcheck disable=SC2086
	profile "$TMP/off" 2 -f 100 --pids "$hot" $mode
	ok $? "daemon ran with $mode"
	col=$(ls "$TMP"/off/profile_*.col 2>/dev/null | head -1)
	[ -n "$col" ] && ! grep -q '_\[rb\]' "$col"
	ok $? "$mode: a profile without _[rb] frames"
done

# An unsupported version: the real libruby with its ruby_version made
# 2.6 (same length), loaded through LD_LIBRARY_PATH.  Refused with one
# line, and one skipped frame in the first cycle only.
kill $hot 2>/dev/null
wait $hot 2>/dev/null
lib=$(ldd "$(command -v ruby)" | awk '/libruby/ { print $3 }')
mkdir -p "$TMP/lib"
[ -n "$lib" ] && cp "$lib" "$TMP/lib/$(basename "$lib")" &&
"$PYTHON3" - "$TMP/lib/$(basename "$lib")" <<'PY'
import re, subprocess, sys
path = sys.argv[1]
out = subprocess.run(["readelf", "-sW", "-S", path], capture_output=True,
                     text=True).stdout
sym = [l.split() for l in out.splitlines() if l.endswith(" ruby_version")]
addr = int(sym[0][1], 16)
# the section holding it: file offset = addr - sh_addr + sh_offset
for l in out.splitlines():
    m = re.match(r"\s*\[\s*\d+\]\s+(\S+)\s+\S+\s+([0-9a-f]+)\s+([0-9a-f]+)"
                 r"\s+([0-9a-f]+)", l)
    if m:
        a, o, s = (int(m.group(i), 16) for i in (2, 3, 4))
        if a <= addr < a + s:
            off = addr - a + o
b = bytearray(open(path, "rb").read())
assert b[off:off + 2] in (b"3.", b"2.")
b[off:off + 3] = b"2.6"
open(path, "wb").write(b)
PY
ok $? "a libruby calling itself 2.6"
rm -f "$TMP/ready"
LD_LIBRARY_PATH="$TMP/lib" ruby --disable-gems "$wl" 30 "$TMP/ready" \
    >/dev/null 2>&1 &
hot=$!
wait_ready "$TMP/ready"
ok $? "old-version workload ready"
mkdir -p "$TMP/old"
GPROFILER_LOCK_NAME="gptest-ruby-$$" "$GP_BIN" --plugin-dir "$GP_PLUGIN_DIR" \
    -o "$TMP/old" -d 2 -c --no-flamegraph --pids "$hot" \
    >"$TMP/old/log" 2>&1 &
agent=$!
i=0
while [ "$(ls "$TMP"/old/profile_*.col 2>/dev/null | wc -l)" -lt 3 ] &&
    [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
kill $agent; wait $agent
[ "$(grep -c "pid $hot (ruby[0-9.]*) skipped: Ruby 2.6.[0-9]* is not supported" \
    "$TMP/old/log")" -eq 1 ]
ok $? "one log line: Ruby 2.6 is not supported"
n=0
for f in $(ls "$TMP"/old/profile_*.col | head -3); do
	grep -q "^[0-9]*;;ruby[0-9.]*;\[Profiling skipped: Ruby 2.6.[0-9]* is not supported (Ruby 2.7-3.4 are)\];" "$f" && n=$((n + 1))
	! grep -q '_\[rb\]' "$f" || n=$((n + 10))
done
check "one skipped frame, in the first cycle only; no Ruby frames ($n)" \
    test "$n" -eq 1

done_testing

#!/bin/sh
# Python versions outside 3.8-3.13 (pyenv's 2.7, 3.6, 3.7 here): a clear
# "[Profiling skipped: Python X.Y is not supported (3.8 to 3.13 are)]"
# frame, once per process and cycle (count 1), never per sample, and
# never "no Python interpreter found" for an interpreter we know.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/workloads/py_lib.sh"
[ "$(id -u)" -eq 0 ] || skip_all "needs root"
[ -x "$GP_BIN" ] || skip_all "no daemon"
tap_tmpdir
r=${PYENV_ROOT:-$HOME/.pyenv}
pids=
n=0
for v in 2.7:2.7.18 3.6:3.6.15 3.7:3.7.16; do
	m=${v%%:*}; f=${v#*:}
	py="$r/versions/$f/bin/python$m"
	[ -x "$py" ] || continue
	printf 'x = 0\nwhile True:\n    x += 1\n' >"$TMP/busy$m.py"
	"$py" "$TMP/busy$m.py" & pids="$pids $!:$m"
	n=$((n + 1))
done
trap 'for p in $pids; do kill ${p%%:*} 2>/dev/null; done; rm -rf "$TMP"' EXIT
[ $n -gt 0 ] || skip_all "no Python outside 3.8-3.13 under pyenv"
sleep 0.5
mkdir -p "$TMP/out"
GPROFILER_LOCK_NAME="gptest-pyold-$$" "$GP_BIN" --plugin-dir "$GP_PLUGIN_DIR" \
    -c -d 2 --perf-mode disabled --java-mode disabled -o "$TMP/out" \
    >"$TMP/log" 2>&1 & gp=$!
i=0
while [ $i -lt 150 ] && [ "$(ls "$TMP/out"/profile_*.col 2>/dev/null |
    wc -l)" -lt 3 ]; do
	sleep 0.1; i=$((i + 1))
done
kill $gp; wait $gp
for p in $pids; do
	pid=${p%%:*}; m=${p#*:}
	"$PYTHON3" - "$TMP/out" "$pid" "$m" <<'PY'
import glob, re, sys
out, pid, ver = sys.argv[1], sys.argv[2], sys.argv[3]
cols = sorted(glob.glob(out + "/profile_*.col"))[:3]
want = "[Profiling skipped: Python %s is not supported (3.8 to 3.13 are)]" % ver
per = []
for c in cols:
    lines = [l for l in open(c).read().split("\n")[1:]
             if l.split(";")[2:3] == ["python" + ver]]
    per.append(lines)
print("# %s: %s" % (ver, [len(l) for l in per]))
ok = len(cols) == 3 and all(len(l) == 1 and l[0].endswith(";" + want + " 1")
                            for l in per)
sys.exit(0 if ok else 1)
PY
	ok $? "Python $m: one clear skipped frame per cycle, count 1"
done
done_testing

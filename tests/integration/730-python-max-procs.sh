#!/bin/sh
# --max-processes-runtime-profiler N (docs/specs/gprofiler-compat.md §10): the
# Python plugin samples only the N processes using the most CPU.  Two busy
# interpreters and a light one (20% of a CPU): without a limit all three get
# Python frames; with N = 2 only the busy ones do.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/workloads/py_lib.sh"
[ "$(id -u)" -eq 0 ] || skip_all "needs root"
[ -x "$GP_BIN" ] || skip_all "no daemon"
py=/usr/bin/python3.11
[ -x "$py" ] || py=$(py_interps | awk 'NR == 1 { print $2 }')
[ -n "$py" ] || skip_all "no CPython 3.8-3.13"
tap_tmpdir

for n in busy_a busy_b; do
	cat >"$TMP/$n.py" <<PY
def ${n}_loop():
    print("ready", flush=True)
    while True:
        pass
${n}_loop()
PY
done
cat >"$TMP/light.py" <<'PY'
import time
def light_loop():
    print("ready", flush=True)
    while True:
        end = time.time() + 0.02
        while time.time() < end:
            pass
        time.sleep(0.08)
light_loop()
PY
pids=
for n in busy_a busy_b light; do
	"$py" "$TMP/$n.py" >"$TMP/ready.$n" 2>&1 &
	pids="$pids $!"
done
trap 'kill $pids 2>/dev/null; rm -rf "$TMP"' EXIT
for n in busy_a busy_b light; do
	py_wait_ready "$TMP/ready.$n" || { echo "Bail out! $n did not start"; exit 1; }
done
sleep 1	# a CPU history for the first scan

# has_py OUT NAME: the profile has Python frames of NAME's loop.
has_py() { grep -aqF "${2}_loop ($TMP/$2.py:" "$1/last_profile.col"; }

py_profile "$TMP/all" 3 -f 49
ok $? "control run without a limit"
has_py "$TMP/all" busy_a && has_py "$TMP/all" busy_b && has_py "$TMP/all" light
ok $? "without a limit every Python process has Python frames"

# Among these three only: on a shared host (CI runs tests side by side)
# other busy interpreters would take the top places.
py_profile "$TMP/top2" 3 -f 49 --max-processes-runtime-profiler 2 \
    --pids "$(echo $pids | tr ' ' ,)"
ok $? "run with --max-processes-runtime-profiler 2"
has_py "$TMP/top2" busy_a && has_py "$TMP/top2" busy_b
ok $? "the two busy processes are sampled"
! has_py "$TMP/top2" light
ok $? "the light one is not"
if ! has_py "$TMP/top2" busy_a || ! has_py "$TMP/top2" busy_b; then
	diag "the agent's Python lines and the profile's Python frames:"
	grep -i python "$TMP/top2/log" | head -10 | while IFS= read -r l; do
		diag "$l"; done
	grep -ao '[a-z_]*_loop ([^)]*)' "$TMP/top2/last_profile.col" | sort |
	    uniq -c | while IFS= read -r l; do diag "$l"; done
fi
done_testing

#!/bin/sh
# Python plugin through the real daemon, awkward processes: one in its own
# mount namespace whose interpreter and script exist only on a private
# tmpfs; one that exits in the middle of the cycle; one that looks like
# Python (its executable is named python2.7) but has no interpreter, which
# gets a "[Profiling skipped: ...]" frame over perf's stacks.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/workloads/py_lib.sh"
[ "$(id -u)" -eq 0 ] || skip_all "needs root"
[ -x "$GP_BIN" ] || skip_all "no daemon"
command -v unshare >/dev/null || skip_all "unshare(1) missing"
py=/usr/bin/python3.11
[ -x "$py" ] || py=$(py_interps | awk 'NR == 1 { print $2 }')
[ -n "$py" ] || skip_all "no CPython 3.8-3.13"
tap_tmpdir
wl="$top_srcdir/tests/workloads"

# Own mount namespace: interpreter (if static) and script on a tmpfs.
mkdir -p "$TMP/ns"
case $py in /usr/bin/*) nspy=python3.11 ;; *) nspy= ;; esac
unshare -m sh -c 'mount -t tmpfs none "$1" && cp "$2" "$1/ns_app.py" &&
    if [ -n "$4" ]; then cp "$3" "$1/$4"; p="$1/$4"; else p="$3"; fi &&
    exec "$p" "$1/ns_app.py"' sh "$TMP/ns" "$wl/py_nested.py" "$py" \
    "$nspy" >"$TMP/ready.ns" 2>&1 &
ns=$!
# Exits mid-cycle: busy for 2 s of a 5 s cycle.
cat >"$TMP/short_lived.py" <<'PY'
import time
def short_lived_busy():
    end = time.time() + 2
    while time.time() < end:
        pass
print("ready", flush=True)
short_lived_busy()
PY
# Not an interpreter, though named like one (yes(1) keeps perf busy).
cp /usr/bin/yes "$TMP/python2.7"
"$TMP/python2.7" >/dev/null &
fake=$!
trap 'kill $ns $fake $agent 2>/dev/null; rm -rf "$TMP"' EXIT
py_wait_ready "$TMP/ready.ns"
ok $? "namespaced workload started"
[ ! -e "$TMP/ns/ns_app.py" ]
ok $? "its script is invisible from the host"

# The short-lived process starts once the cycle has begun (the agent's
# "profiling run" line: sampling is on): a loaded host can take seconds
# to load the BPF program, and a process started at a fixed delay after
# the agent could live and die before anything samples.
py_profile "$TMP/out" 5 -f 49 -v &
agent=$!
i=0
while ! grep -q '^INFO profiling run:' "$TMP/out/log" 2>/dev/null &&
    [ $i -lt 300 ]; do
	sleep 0.1; i=$((i + 1))
done
"$py" "$TMP/short_lived.py" >/dev/null &
short=$!
wait $agent
ok $? "one cycle with perf and python"
wait $short
col="$TMP/out/last_profile.col"
grep -aF "$TMP/ns/ns_app.py:" "$col" | grep -q 'inner_loop ('
ok $? "namespaced process: frames from its private script"
grep -aF "appid: python: $TMP/ns/ns_app.py" "$col" >/dev/null
ok $? "namespaced process: appid"
# The line executing: the loop's (4 or 5), not the def's.
grep -a "short_lived_busy ($TMP/short_lived.py:[45])_\\[p\\]" "$col" >/dev/null ||
    { diag "$(grep -a "pid $short\b" "$TMP/out/log" | head -5)"; false; }
ok $? "process that exited mid-cycle: its samples kept"
# Named like Python 2.7: skipped as an unsupported version (from the name).
grep -a '^[0-9]*;[^;]*;python2.7;' "$col" | grep -Eq \
    ';\[Profiling skipped: (no Python interpreter found|Python 2\.7 is not supported)'
ok $? "fake python: skipped frame over perf's stacks"
kill -0 $ns
ok $? "namespaced process still running (never stopped)"
grep -qi 'python.*error\|segfault\|abort' "$TMP/out/log" &&
    diag "$(grep -i python "$TMP/out/log" | tail -5)"
done_testing

#!/bin/sh
# Python plugin through the real daemon: every CPython 3.8-3.13 here (and
# Debian's static 3.11) runs the nested workload at once; each must show
# its nested functions with the lines executing, its appid and app
# metadata, no gprofiler agent taken for Python (its python.so plugin), and
# never its sleeping thread.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/workloads/py_lib.sh"
[ "$(id -u)" -eq 0 ] || skip_all "needs root"
[ -x "$GP_BIN" ] || skip_all "no daemon"
tap_tmpdir
py_interps >"$TMP/interps"
[ -s "$TMP/interps" ] || skip_all "no CPython 3.8-3.13"
pids=
while read -r label py; do
	cp "$top_srcdir/tests/workloads/py_nested.py" "$TMP/nested_$label.py"
	"$py" "$TMP/nested_$label.py" >"$TMP/ready.$label" 2>&1 &
	pids="$pids $!"
done <"$TMP/interps"
trap 'kill $pids 2>/dev/null; rm -rf "$TMP"' EXIT
while read -r label py; do
	py_wait_ready "$TMP/ready.$label"
	ok $? "$label workload started"
done <"$TMP/interps"

# Another agent (its own network namespace: one agent per namespace) maps
# the python.so plugin, which the python regex matches: not a Python
# process, so no "[Profiling skipped: ...]" frame for it.  Its plugin is
# then replaced on disk, as a package upgrade does before the restart:
# it maps ".../python.so (deleted)", still no Python process.
cp -r "$GP_PLUGIN_DIR" "$TMP/plugins"
unshare -n "$GP_BIN" --plugin-dir "$TMP/plugins" -c -d 60 \
    --perf-mode disabled --java-mode disabled -o "$TMP/other" \
    >"$TMP/other.log" 2>&1 &
other=$!
pids="$pids $other"
i=0
while [ $i -lt 50 ] && ! grep -q '/python\.so$' /proc/$other/maps 2>/dev/null
do
	sleep 0.1; i=$((i + 1))
done
grep -q '/python\.so$' /proc/$other/maps 2>/dev/null
ok $? "control: another agent runs with the python.so plugin mapped"
cp "$TMP/plugins/python.so" "$TMP/plugins/python.so.new"
mv "$TMP/plugins/python.so.new" "$TMP/plugins/python.so"
grep -q '/python\.so (deleted)$' /proc/$other/maps
ok $? "control: its python.so replaced on disk, mapped as deleted"
py_profile "$TMP/out" 4 --perf-mode disabled -v
ok $? "one cycle with perf disabled (python only)"
col="$TMP/out/last_profile.col"
[ -s "$col" ]
ok $? "profile written"

def=$(grep -n '# DEF:\|# BUSY:' "$top_srcdir/tests/workloads/py_nested.py")
defl() { echo "$def" | grep "DEF:$1\$" | cut -d: -f1; }
busyl() { echo "$def" | grep "BUSY:$1\$" | cut -d: -f1; }
callmod=$(grep -n '^outer()$' "$top_srcdir/tests/workloads/py_nested.py" |
    cut -d: -f1)
while read -r label py; do
	f="$TMP/nested_$label.py"
	case $label in 3.8|3.9|3.10) step=step ;; *) step=Worker.step ;; esac
	# The executing line of each frame: the call in each caller, the
	# loop or its body in the leaf.
	want="outer ($f:$(($(defl outer) + 1)))_[p];middle ($f:$(($(defl middle) + 1)))_[p];inner_loop ($f:$(busyl inner))_[p];$step ($f:"
	grep -aF "$want$(busyl step))_[p]" "$col" >/dev/null ||
	    grep -aF "$want$(($(busyl step) - 1)))_[p]" "$col" >/dev/null
	ok $? "$label: nested functions with the lines executing"
	grep -aF "appid: python: $f ($f);<module> ($f:$callmod)_[p];outer" \
	    "$col" >/dev/null
	ok $? "$label: appid and <module> root"
	! grep -aF "sleeping_thread_body ($f:" "$col" >/dev/null
	ok $? "$label: sleeping thread absent"
done <"$TMP/interps"
# Only the agent's own lines: tests run side by side, and
# 752-python-unsupported's Python 2.7-3.7 (no _PyRuntime) are rightly
# skipped frames of this whole-host profile when they run at the same time.
grep -a "^[0-9]*;[^;]*;gprofiler;.*\(\[Profiling\|no _PyRuntime\)" \
    "$col" >"$TMP/agent-skips"
[ ! -s "$TMP/agent-skips" ]
ok $? "no skipped frame for the other agent"
[ -s "$TMP/agent-skips" ] && diag "$(cut -c1-300 "$TMP/agent-skips"
    grep -a 'python.*pid' "$TMP/out/log" | tail -20)"
kill $other 2>/dev/null
head -1 "$col" | grep -q '"python_version": "Python 3\.[0-9]*\.[0-9]*"'
ok $? "app metadata has python_version"
head -1 "$col" | grep -q '"libpython_elfid": "buildid:[0-9a-f]*"'
ok $? "app metadata has libpython_elfid"
grep -q 'python' "$TMP/out/log" || diag "$(tail -5 "$TMP/out/log")"
done_testing

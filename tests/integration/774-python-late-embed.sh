#!/bin/sh
# A native program that loads CPython late, by dlopen, as uWSGI loads its
# Python plugin (tests/workloads/late_embed.c): native code for 3 s, then
# Python for 9 s.  The Python plugin looks at it first while it is native
# and finds no interpreter; the process must not be ignored for the rest
# of its life.  When it maps libpython's code the perf plugin reports it
# again (perf_maps.c), and with another address space it is looked at
# again (langtab_recheck): its Python frames are in the profile of the
# same cycle, here the one-shot run's only one (before, a process was
# reported once a cycle: none).
. "$top_srcdir/tests/tap.sh"
[ "$(id -u)" -eq 0 ] || skip_all "needs root"
[ -x "$GP_BIN" ] || skip_all "no daemon"
lib=$(ls /usr/lib/*-linux-gnu/libpython3.*.so.1.0 2>/dev/null | head -1)
[ -n "$lib" ] || skip_all "no shared libpython (apt-get install libpython3.11)"
embed=$top_builddir/tests/workloads/late_embed
[ -x "$embed" ] || skip_all "no tests/workloads/late_embed"
tap_tmpdir
trap 'kill $agent $wl 2>/dev/null; rm -rf "$TMP"' EXIT

mkdir -p "$TMP/out"
GPROFILER_LOCK_NAME="gptest-pylate-$$" "$GP_BIN" --plugin-dir \
    "$GP_PLUGIN_DIR" -o "$TMP/out" -d 18 -f 49 --no-flamegraph -v \
    >"$TMP/out/log" 2>&1 &
agent=$!
wait_line "$TMP/out/log" '^INFO profiling run:'
ok $? "the agent is profiling"
# (CPython does not free all it allocates: no leak report for the
# workload of an ASan build)
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
    "$embed" "$lib" 3 9 >"$TMP/wl.out" 2>&1 &
wl=$!
wait $wl
ok $? "the program ran Python after its native start"
grep -q '^python' "$TMP/wl.out"
ok $? "it started the interpreter it loaded"
wait $agent	# its one cycle ends 6 s after the program
ok $? "the one-shot agent ended its cycle (exit 0)"
agent=
grep -q "python: pid $wl: its mappings changed: looked at again" \
    "$TMP/out/log"
r=$?
ok $r "looked at again once it had mapped libpython"
[ $r -eq 0 ] || grep -v "symbolizer:" "$TMP/out/log" | head -40 | sed 's/^/# /'
n=$(cat "$TMP"/out/profile_*.col 2>/dev/null |
    grep "late_hot (<string>:[0-9]*)_\[p\]" |
    awk '{ s += $NF } END { print s + 0 }')
[ "$n" -ge 20 ]
ok $? "its Python frames are in the one profile ($n samples in late_hot)"
[ "$n" -ge 20 ] || cat "$TMP"/out/profile_*.col 2>/dev/null |
    grep "late_embed" | head -3 | cut -c1-300 | sed 's/^/# /'
done_testing

#!/bin/sh
# perf plugin: a static binary's stacks end where its code begins.  glibc's
# entry code is built without frame pointers and, in a static binary,
# leaves a pointer in the frame register: a frame-pointer walk reads on
# past __libc_start_call_main, and perf shows the stack slots it read as
# frames ("[unknown];__do_global_dtors_aux;__libc_start_call_main;main;..."
# on Debian 12).  The agent keeps a stack up to its entry frames
# (plugins/perf/stackroot.h).  perf's own stacks are shown beside, not
# judged: they differ by design.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/workloads/perf_lib.sh"
perf_require
tap_tmpdir
[ -x "$WL/perf_busy_static" ] || skip_all "no static workload built"

"$WL/perf_busy_static" -t 30 & busy=$!
perf_wait_exec $busy perf_busy_stati
mkdir "$TMP/out"
"$GP_BIN" --plugin-dir "$GP_PLUGIN_DIR" -o "$TMP/out" -d 4 -f 99 \
    --no-flamegraph --python-mode disabled --java-mode disabled \
    >"$TMP/log" 2>&1
ok $? "one cycle" || sed 's/^/# /' "$TMP/log" | tail -10
grep -v '^#' "$TMP"/out/profile_*.col | awk -F';' '$3 == "perf_busy_stati"' \
    >"$TMP/static.col"
n=$(grep -c ';main;busy_run;busy_round;hot_' "$TMP/static.col")
[ "${n:-0}" -gt 0 ]
ok $? "the static binary's hot functions named under main ($n stacks)" ||
    head -5 "$TMP/static.col" | cut -c1-200 | sed 's/^/# /'
# .col: index;container;comm;root...leaf count
bad=$(grep ';main;' "$TMP/static.col" |
    awk -F';' '$4 != "__libc_start_call_main"' | wc -l)
[ "$bad" -eq 0 ]
ok $? "every stack under main begins at __libc_start_call_main ($bad do not)" ||
    grep ';main;' "$TMP/static.col" |
    awk -F';' '$4 != "__libc_start_call_main"' | head -3 | cut -c1-200 |
    sed 's/^/# /'
! grep -q '__do_global_dtors_aux' "$TMP/static.col"
ok $? "no frame read past the entry code (__do_global_dtors_aux)"

# perf, side by side
if perf record -q -g -p $busy -o "$TMP/perf.data" -- sleep 2 \
    >/dev/null 2>&1 && perf script -i "$TMP/perf.data" -F ip,sym \
    >"$TMP/perf.txt" 2>/dev/null; then
	diag "perf script: $(grep -c '__do_global_dtors_aux' "$TMP/perf.txt") of its $(awk 'BEGIN { RS = "" } END { print NR }' "$TMP/perf.txt") samples read on past __libc_start_call_main (__do_global_dtors_aux)"
fi
kill $busy 2>/dev/null
wait
done_testing

#!/bin/sh
# A long run in miniature: many cycles while processes come and go; the
# agent's memory must level off (profile store, interned frames,
# symbolizer caches and per-PID state are all bounded).
. "$top_srcdir/tests/tap.sh"
[ "$(id -u)" -eq 0 ] || skip_all "needs root for BPF"
tap_tmpdir
# PID churn: short-lived processes with varying binaries and stacks.
churn() {
	while [ -e "$TMP/churn" ]; do
		for b in /bin/true /bin/ls /usr/bin/env; do
			$b >/dev/null 2>&1
		done
		sleep 0.02
	done
}
touch "$TMP/churn"
churn &
cpid=$!
"$GP_BIN" --plugin-dir "$GP_PLUGIN_DIR" -c -d 1 -f 199 -o "$TMP/out" \
    --rotating-output --no-flamegraph >"$TMP/log" 2>&1 &
pid=$!
rss_at() {	# rss_at CYCLES: VmRSS (kB) once CYCLES profiles were written
	i=0
	while [ $i -lt 600 ]; do
		n=$(grep -c "output: wrote" "$TMP/log")
		[ "$n" -ge "$1" ] && break
		sleep 0.1; i=$((i + 1))
	done
	awk '/^VmRSS/ {print $2}' /proc/$pid/status
}
r1=$(rss_at 8)
r2=$(rss_at 30)
rm -f "$TMP/churn"
wait $cpid
kill -TERM $pid
wait $pid
ok $? "30 cycles with PID churn, then a clean stop"
diag "VmRSS after 8 cycles: ${r1} kB, after 30: ${r2} kB"
if asan_build; then
	skip "memory levels off" "ASan build"
else
	[ -n "$r1" ] && [ -n "$r2" ] && [ $((r2 - r1)) -lt 2048 ]
	ok $? "memory levels off (grew $((r2 - r1)) kB from cycle 8 to 30; bound 2048)"
fi
[ "$(ls "$TMP/out" | grep -c '^profile_.*\.col$')" -eq 1 ]
ok $? "--rotating-output keeps one profile"
done_testing

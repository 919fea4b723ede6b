#!/bin/sh
# gpu mode end to end with the fake iaprof: folding, metadata, argv, CLI
# validation, only the iaprof plugin mapped, SIGINT-only stop.
. "$top_srcdir/tests/tap.sh"
tap_tmpdir
. "$top_srcdir/tests/integration/iaprof_lib.sh"

gp -d 2 >"$TMP/log" 2>&1
ok $? "one gpu cycle exits 0"
col="$TMP/out/last_profile.col"
check_model "$col" 1
ok $? "the .col folds exactly as the fake's model (spec section 5)"
test "$(header_get "$col" profiling_mode)" = gpu
ok $? "profiling_mode is gpu"
test "$(header_get "$col" iaprof_version)" = 2026.3 &&
    test "$(header_get "$col" iaprof_output_interval_ms)" = 10 &&
    test "$(header_get "$col" iaprof_eu_stall_subsample)" = 100 &&
    test "$(header_get "$col" iaprof_malformed_records)" = 0
ok $? "metadata: iaprof_version, interval, subsample, malformed count"
grep -q "^start [0-9]* 1 --interval=10 --eu-stall-subsample=100\$" "$TMP/fake.log"
ok $? "argv is exactly --interval=10 --eu-stall-subsample=100"
grep -q " INT\$" "$TMP/fake.log" && ! grep -q "TERM\|HUP" "$TMP/fake.log"
ok $? "stopped with SIGINT, never SIGTERM"

rm -f "$TMP/fake.log" "$TMP/fake.state"
gp -d 1 -f 16 --iaprof-eu-stall-subsample 7 >"$TMP/log" 2>&1
ok $? "-f 16 and a subsample"
grep -q -- "--interval=62 --eu-stall-subsample=7\$" "$TMP/fake.log"
ok $? "-f 16 gives --interval=62 (halves to even)"

for bad in "--rootless" "--alloc-interval 2mb" "-f 0" "-f 1001" \
    "--iaprof-eu-stall-subsample 0" "--perf-mode dwarf"; do
	# shellcheck disable=SC2086
	gp -d 1 $bad >"$TMP/log" 2>&1
	test $? -eq 2
	ok $? "gpu mode refuses $bad with exit 2"
done

# Continuous: only iaprof.so is mapped; SIGINT stops cleanly.
rm -f "$TMP/fake.log" "$TMP/fake.state"
FAKE_IAPROF_MODE=chunked gp_bg -c -d 1 >"$TMP/log" 2>&1
sleep 3
sos=$(grep -o '[^/ ]*\.so$' "/proc/$gpid/maps" | sort -u | grep -v '^lib\|^ld-' | tr '\n' ' ')
test "$sos" = "iaprof.so "
ok $? "only the iaprof plugin is mapped in gpu mode ($sos)"
check_model "$TMP/out/last_profile.col" 1
ok $? "4 KiB chunked writes with no flush fold the same"
kill -INT "$gpid"; wait "$gpid"
ok $? "the daemon stops on SIGINT"
fpid=$(sed -n 's/^start \([0-9]*\) .*/\1/p' "$TMP/fake.log" | tail -1)
test -n "$fpid" && ! kill -0 "$fpid" 2>/dev/null
ok $? "iaprof is gone after the stop"
done_testing

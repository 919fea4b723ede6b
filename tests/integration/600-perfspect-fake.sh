#!/bin/sh
# The fake perfspect itself follows docs/specs/perfspect.md section 6 (the
# plugin must not be able to tell it from the real tool).
. "$top_srcdir/tests/tap.sh"
tap_tmpdir
F="$top_srcdir/tests/fakes/fake_perfspect"
H=$(hostname)
# A tenth of PerfSpect's timing; 680-perfspect-fake-realtime.sh runs this
# at real timing (FAKE_PERFSPECT_SCALE=1), the waits stretched to match.
export FAKE_PERFSPECT_SCALE=${FAKE_PERFSPECT_SCALE:-0.1}
# fsleep N: N seconds at a tenth of the timing, stretched at real timing
fsleep() {
	sleep "$(awk -v n="$1" -v s="$FAKE_PERFSPECT_SCALE" \
	    'BEGIN { print n * s / 0.1 }')"
}
cd "$TMP" || exit 99

# settled FILE: wait until the fake has set its signal handlers (its first
# status line); before that a background job ignores SIGINT, and Python
# can take seconds to start on a loaded machine.
settled() {
	i=0
	while ! grep -q "configuring target" "$1" 2>/dev/null && [ $i -lt 300 ]
	do
		sleep 0.1; i=$((i + 1))
	done
}

# a_row DIR: wait until the fake's raw CSV in DIR holds a row (a summary
# needs one; on a loaded host a fixed wait may end before the first).
a_row() {
	i=0
	while [ "$(wc -l 2>/dev/null <"$1/${H}_metrics.csv" || echo 0)" -lt 2 ] &&
	    [ $i -lt 600 ]; do
		sleep 0.1; i=$((i + 1))
	done
}

test "$("$F" --version)" = "perfspect version 3.17.0_2026-04-20_956744c9"
ok $? "#1 --version line on stdout"

"$F" metrics --duration 10 --interval 5 --output out --noupdate >stdout 2>stderr
ok $? "#2 normal run exits 0"
test "$(head -1 "out/${H}_metrics.csv" | cut -d, -f1-5)" = "TS,SKT,CPU,CID,CPU operating frequency (in GHz)"
ok $? "#2 raw CSV header"
test "$(wc -l <"out/${H}_metrics.csv")" -eq 3
ok $? "#2 one row per interval"
test "$(head -1 "out/${H}_metrics_summary.csv")" = "metric,mean,min,max,stddev"
ok $? "#2 summary CSV header"
grep -q "^  $TMP/out/${H}_metrics_summary.html\$" stdout
ok $? "#2 Metric files block with absolute paths"
grep -q "collecting metrics for 10 seconds" stderr
ok $? "#2 progress lines on stderr"
test -s perfspect.log
ok $? "#2 perfspect.log in the current directory"

# Its tools: unpacked into a new directory under --tempdir (else $TMPDIR)
# and run from there, removed at exit.
mkdir unp
"$F" metrics --duration 5 --output unpo --tempdir "$TMP/unp" >/dev/null \
    2>unp.err & pid=$!
settled unp.err
i=0
while ! ls unp/perfspect.*/perf >/dev/null 2>&1 && [ $i -lt 100 ]; do
	sleep 0.05; i=$((i + 1))
done
tools=$(ls -d unp/perfspect.* 2>/dev/null)
wait $pid
test $? -eq 0 && test -n "$tools" && test -z "$(ls -A unp)"
ok $? "#2 tools unpacked under --tempdir ($tools), removed at exit"
mkdir ne
if unshare -m sh -c 'mount -t tmpfs -o noexec none "$1"' sh ne 2>/dev/null; then
	unshare -m sh -c 'mount -t tmpfs -o noexec none "$1" &&
	    TMPDIR=$1 "$2" metrics --duration 5 --output neo' sh "$TMP/ne" "$F" \
	    >/dev/null 2>ne.err
	test $? -eq 1 && grep -q "must not be on a file system mounted with the 'noexec' option" ne.err &&
	    grep -q "no targets remain" ne.err
	ok $? "#2 a noexec \$TMPDIR: the spec's error, exit 1"
else
	skip "#2 a noexec \$TMPDIR: the spec's error, exit 1" "cannot mount here"
fi

"$F" metrics --output sig >stdout 2>stderr & pid=$!
settled stderr; a_row sig; kill -TERM $pid; wait $pid
ok $? "#3 SIGTERM mid-run exits 0"
test -s "sig/${H}_metrics_summary.csv" && test -s "sig/${H}_metrics_summary.html"
ok $? "#3 summaries written after SIGTERM"
"$F" metrics --output int >stdout 2>stderr & pid=$!
settled stderr; a_row int; kill -INT $pid; wait $pid
ok $? "#4 SIGINT mid-run exits 0"
test -s "int/${H}_metrics_summary.csv"
ok $? "#4 summaries written after SIGINT"

FAKE_PERFSPECT_STARTUP=100 "$F" metrics --output early >stdout 2>stderr & pid=$!
settled stderr; fsleep 1; kill -TERM $pid; wait $pid; rc=$?
test $rc -eq 0 && test -z "$(ls -A early)" && grep -q "no metrics collected" stderr
ok $? "#5 stopped before the first row: no files, exit 0"

FAKE_PERFSPECT_MODE=noroot "$F" metrics --output noroot </dev/null >stdout 2>stderr
test $? -eq 1 && grep -q "Error: no targets remain" stderr && test -d noroot && test -z "$(ls -A noroot)"
ok $? "#6 not root: exit 1, no targets remain, empty dir"

FAKE_PERFSPECT_MODE=unsupported "$F" metrics --output unsup >stdout 2>stderr
test $? -eq 1 && grep -q "does not support instructions event collection" stderr && test -z "$(ls -A unsup)"
ok $? "#7 unsupported host: exit 1, no CSV"

FAKE_PERFSPECT_MODE=nan "$F" metrics --duration 5 --output nan >/dev/null 2>&1
grep -q '^TMA_......MEM_Bandwidth(%),NaN,NaN,NaN,NaN$' "nan/${H}_metrics_summary.csv" && grep -q ',$' "nan/${H}_metrics.csv"
ok $? "#8 NaN: empty raw field, NaN summary row"

"$F" metrics --duration 3 --output bad >stdout 2>stderr
test $? -eq 1 && grep -q "^Error: duration must be greater than or equal to the event collection interval (5)$" stderr && grep -q "^See 'perfspect metrics --help' for usage details.$" stderr
ok $? "#11 bad flags: two lines, exit 1"

"$F" metrics --live --format csv --duration 10 >stdout 2>/dev/null
test $? -eq 0 && head -1 stdout | grep -q '^TS,SKT,CPU,CID,' && test "$(wc -l <stdout)" -eq 3 && ! ls "$TMP"/perfspect_* >/dev/null 2>&1
ok $? "#12 live CSV on stdout, no files"

FAKE_PERFSPECT_MODE=hang "$F" metrics --output hang >/dev/null 2>hang.err & pid=$!
settled hang.err; sleep 0.5; kill -TERM $pid; sleep 0.3
kill -0 $pid 2>/dev/null
ok $? "hang: SIGTERM ignored"
kill -KILL $pid; wait $pid 2>/dev/null
done_testing

#!/bin/sh
# SIGTERM ends the agent even when its event loop cannot run.  A runtime
# reader's remote read can fault on a page of a file whose FUSE server
# never answers (the process's owner swaps a checked mapping for such a
# file in the instant before the read): the loop then waits in the kernel,
# where a caught signal does not reach it.  Here a fixture plugin puts the
# loop in that wait for certain (a plain read of a file on such a mount, a
# second after the start); the stop guard's thread must take SIGTERM, see
# the loop not turning, say where it waits in one line and end the agent
# within a few seconds.  A control run without the stall stops cleanly.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/fuse_lib.sh"
[ "$(id -u)" -eq 0 ] || skip_all "needs root"
[ -x "$GP_BIN" ] || skip_all "no daemon"
tap_tmpdir
trap 'kill -KILL $agent 2>/dev/null; fuse_stall_stop; rm -rf "$TMP"' EXIT
fuse_stall_start "$TMP/fz" other
export GPROFILER_LOCK_NAME="gptest-stopguard-$$"

d="$TMP/plugins"
fixture_stall_plugin "$d"

# run LABEL STALL_FILE: the agent started, SIGTERM once the fixture reads;
# the exit status in $rc and the milliseconds it took in $took.
run() {
	mkdir -p "$TMP/$1"
	FIXTURE_STALL_FILE=$2 "$GP_BIN" --plugin-dir "$d" \
	    --plugin-dir "$GP_PLUGIN_DIR" --perf-mode disabled \
	    -o "$TMP/$1" -d 30 -c --no-flamegraph >"$TMP/$1.log" 2>&1 &
	agent=$!
	# The fixture says when it reads (a second after the start), then
	# the read has half a second to begin its wait.
	wait_line "$TMP/$1.log" "fixture_stall: reading" 20
	sleep 0.5
	t0=$(date +%s%N)
	kill -TERM "$agent"
	wait_gone "$agent" 10
	gone=$?
	took=$((($(date +%s%N) - t0) / 1000000))
	killed=
	if [ $gone -ne 0 ]; then
		killed=1
		kill -KILL "$agent"
	fi
	wait "$agent"
	rc=$?
	[ -z "$killed" ] || rc=killed
	agent=
	[ "$rc" = 0 ] || tail -5 "$TMP/$1.log" | sed 's/^/# /'
}

run control /nonexistent
[ "$rc" = 0 ] && [ "$took" -le 2000 ]
ok $? "control: SIGTERM stops it cleanly (exit $rc, $took ms)"
! grep -q "event loop has not run" "$TMP/control.log"
ok $? "control: the stop guard said nothing"

run stalled "$FUSE_MNT/stall"
grep -q "fixture_stall: reading $FUSE_MNT/stall" "$TMP/stalled.log"
ok $? "the loop went into the FUSE read"
# 2 s (the guard's 1.5 s and a beat), and half a second for a loaded host
[ "$rc" = 1 ] && [ "$took" -le 2500 ]
ok $? "stalled: SIGTERM still ends it, exit 1, within 2 s ($rc, $took ms)"
grep "event loop has not run" "$TMP/stalled.log" | sed 's/^/# /'
grep -q "stopping: the event loop has not run for [0-9]* ms (waiting in the kernel.*, reading $FUSE_MNT/stall): exiting without finishing the cycle" \
    "$TMP/stalled.log"
ok $? "one line says the loop waits in the kernel, and on what"
grep -q "exiting without finishing the cycle; a FUSE mount of root's ($FUSE_MNT): not aborted" \
    "$TMP/stalled.log"
ok $? "... and that the mount is root's, left alone"
done_testing

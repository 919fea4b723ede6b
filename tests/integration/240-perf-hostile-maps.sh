#!/bin/sh
# perf plugin under a local user's attack on /tmp/perf-PID.map, through the
# daemon: JIT processes whose map is replaced by a FIFO (a plain open()
# blocked the agent forever), by a symlink to a root-only file, and by a
# file planted by another user.  The agent must keep cycling, say once per
# process why it refused the map, and never show the planted names.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/workloads/perf_lib.sh"
perf_require
tap_tmpdir
[ -x "$GP_BIN" ] || skip_all "daemon not built"
command -v setpriv >/dev/null || skip_all "setpriv(1) missing"

# jit_start VAR [setpriv args...]: a perf_jit that wrote its map; its PID
# and the map's first line (the JIT code's address) in VAR and VAR_line.
jit_start() {
	var=$1; shift
	if [ $# -gt 0 ]; then
		setpriv "$@" "$WL/perf_jit" -t 14 &
	else
		"$WL/perf_jit" -t 14 &
	fi
	pid=$!
	perf_wait_exec $pid perf_jit || return 1
	i=0
	while [ ! -s /tmp/perf-$pid.map ] && [ $i -lt 50 ]; do
		sleep 0.05; i=$((i + 1))
	done
	eval "$var=$pid; ${var}_line=\$(head -1 /tmp/perf-$pid.map)"
}

NOBODY="--reuid=65534 --regid=65534 --clear-groups"
jit_start fifo || skip_all "perf_jit did not start"
# shellcheck disable=SC2086
jit_start link $NOBODY || skip_all "perf_jit as nobody did not start"
# shellcheck disable=SC2086
jit_start other $NOBODY || skip_all "perf_jit as nobody did not start"

# The attacks, each on a map its process already wrote.
rm -f /tmp/perf-$fifo.map && mkfifo /tmp/perf-$fifo.map
ok $? "pid $fifo: its perf map is now a FIFO"
addr=${link_line%% *}
printf '%s f stolen_secret\n' "$addr" >"$TMP/root-only"
chmod 0600 "$TMP/root-only"
rm -f /tmp/perf-$link.map && ln -s "$TMP/root-only" /tmp/perf-$link.map
ok $? "pid $link (nobody): its map is a symlink to a root-only file"
addr=${other_line%% *}
rm -f /tmp/perf-$other.map
printf '%s f planted_by_other\n' "$addr" >/tmp/perf-$other.map
chown 1234:1234 /tmp/perf-$other.map
ok $? "pid $other (nobody): its map replaced by another user's file"

out=$TMP/out
mkdir -p "$out"
timeout 30 "$GP_BIN" --plugin-dir "$GP_PLUGIN_DIR" -o "$out" -d 3 -c \
    --no-flamegraph -f 99 --pids "$fifo,$link,$other" >"$TMP/log" 2>&1 &
gp=$!
sleep 11
kill -TERM $gp 2>/dev/null
wait $gp
ncol=$(ls "$out"/profile_*.col 2>/dev/null | wc -l)
[ "$ncol" -ge 2 ]
ok $? "the agent kept cycling ($ncol profiles in 11 s of 3 s cycles)"
n=$(grep -c "pid $fifo: perf map /tmp/perf-$fifo.map (in its root) refused: not a regular file (a FIFO)" "$TMP/log")
[ "$n" -eq 1 ]
ok $? "the FIFO is named in one clear log line ($n)"
n=$(grep -c "pid $link: perf map .* refused: reached through a symlink" "$TMP/log")
[ "$n" -eq 1 ]
ok $? "the symlink is refused, said once ($n)"
n=$(grep -c "pid $other: perf map .* refused: owned by another user" "$TMP/log")
[ "$n" -eq 1 ]
ok $? "another user's file is refused, said once ($n)"
! grep -q stolen_secret "$out"/profile_*.col
ok $? "the root-only file's content never shows in a profile"
! grep -q planted_by_other "$out"/profile_*.col
ok $? "nor does the planted file's"
grep -q "perf_jit" "$out"/profile_*.col
ok $? "the JIT processes were profiled"

kill $fifo $link $other 2>/dev/null
wait 2>/dev/null
rm -f /tmp/perf-$fifo.map /tmp/perf-$link.map /tmp/perf-$other.map
grep -E "WARN|ERR" "$TMP/log" | head -20 | while IFS= read -r l; do
	diag "$l"
done
done_testing

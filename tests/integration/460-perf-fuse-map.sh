#!/bin/sh
# perf plugin against a local user whose JIT process's /tmp/perf-PID.map
# is a file on FUSE whose reads never answer.  In its own user and mount
# namespaces (unshare -Urm) nobody bind-mounts a file of a FUSE mount it
# can enter over the map its JIT process wrote: the agent, reading the map
# on the process's behalf (/proc/PID/root/tmp/perf-PID.map), would wait
# for that server in an uninterruptible sleep, deaf to SIGTERM and with no
# cycle.  A mount nobody's own FUSE server makes is closed to root (no
# allow_other); this one is one every user may enter, as root's own
# are (an sshfs whose server went away) or a user's where /etc/fuse.conf
# has user_allow_other.  And a Python process of nobody's runs code whose
# file is in a site-packages directory on that mount (it names the file;
# the directory's listing never answers): the Python reader lists a
# packages directory for the versions of its distributions.  The agent
# must refuse the file and the directory (on FUSE), say so once each, and
# keep its cycles, CPU, memory and SIGTERM (tests/attack_lib.sh).
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/workloads/perf_lib.sh"
. "$top_srcdir/tests/attack_lib.sh"
. "$top_srcdir/tests/fuse_lib.sh"
perf_require
[ -x "$GP_BIN" ] || skip_all "daemon not built"
command -v setpriv >/dev/null || skip_all "setpriv(1) missing"
command -v unshare >/dev/null || skip_all "unshare(1) missing"
NOBODY="--reuid=65534 --regid=65534 --clear-groups"
# shellcheck disable=SC2086
setpriv $NOBODY unshare -Urm true 2>/dev/null ||
    skip_all "unprivileged user namespaces are disabled here"
tap_tmpdir
chmod 0755 "$TMP"
mkdir -p "$TMP/pub"
chmod 0777 "$TMP/pub"
cleanup() {
	[ -n "${attacker:-}" ] && kill "$attacker" 2>/dev/null
	[ -n "${jit:-}" ] && kill -KILL "$jit" 2>/dev/null
	[ -n "${pyv:-}" ] && kill -KILL "$pyv" 2>/dev/null
	# The server's death lets a reader stuck on its file go.
	fuse_stall_stop
	[ -n "${AGENT_PID:-}" ] && kill -KILL "$AGENT_PID" 2>/dev/null
	[ -n "${jit:-}" ] && rm -f "/tmp/perf-$jit.map"
	rm -rf "$TMP"
}
trap cleanup EXIT
fuse_stall_start "$TMP/fz" other
ok 0 "a FUSE filesystem whose reads never answer, open to every user"

# The attacker, as nobody in its own user and mount namespaces: a JIT
# process writes its map, then a FUSE file is mounted over it.
# shellcheck disable=SC2086,SC2016
setpriv $NOBODY unshare -Urm sh -c '
	wl=$1 pub=$2 fz=$3
	"$wl/perf_jit" -t 30 &
	j=$!
	i=0
	while [ ! -s /tmp/perf-$j.map ] && [ $i -lt 100 ]; do
		sleep 0.05; i=$((i + 1))
	done
	mount --bind "$fz/perf.map" /tmp/perf-$j.map && echo $j >"$pub/mounted"
	wait' sh "$WL" "$TMP/pub" "$FUSE_MNT" >"$TMP/attacker.log" 2>&1 &
attacker=$!
i=0
while [ ! -s "$TMP/pub/mounted" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
jit=$(cat "$TMP/pub/mounted" 2>/dev/null)
if [ -z "$jit" ]; then
	sed 's/^/# /' "$TMP/attacker.log"
	skip_all "could not mount in a user namespace here"
fi
ok 0 "nobody mounted a FUSE file over its JIT process's perf map"
sed -n 's|^[^ ]* [^ ]* [^ ]* [^ ]* \(/tmp/perf-[^ ]*\) .* - \([^ ]*\) .*|# \1 on \2|p' \
    "/proc/$jit/mountinfo"

# The Python process: its function's file names the FUSE site-packages.
py=/usr/bin/python3.11
[ -x "$py" ] || py=/usr/bin/python3
# shellcheck disable=SC2016,SC2086
setpriv $NOBODY "$py" -c '
import sys, time
src = "def pkg_hot(t):\n    while time.monotonic() < t:\n        pass\n"
ns = {"time": time}
exec(compile(src, sys.argv[1], "exec"), ns)
print("ready", flush=True)
ns["pkg_hot"](time.monotonic() + 20)
' "$FUSE_MNT/site-packages/gpv_pkg/hot.py" >"$TMP/py.out" 2>&1 &
pyv=$!
i=0
while ! grep -q ready "$TMP/py.out" 2>/dev/null && [ $i -lt 100 ]; do
	sleep 0.1; i=$((i + 1))
done
grep -q ready "$TMP/py.out"
ok $? "nobody's Python process runs code from a FUSE site-packages"

out=$TMP/out
attack_start "$out" 3 -f 99 --perf-mode fp --pids "$jit,$pyv"
sleep 12
attack_checks "$out" 3
grep 'refused\|WARN' "$out/log" | head -10 | sed 's/^/# /'
n=$(grep -c "pid $jit: perf map /tmp/perf-$jit.map (in its root) refused: on FUSE or a network filesystem" "$out/log")
[ "$n" -eq 1 ]
ok $? "the log says once why the perf map was refused: on FUSE ($n)"
n=$(grep -c "package versions: cannot list $FUSE_MNT/site-packages/ in pid $pyv's root: on fuse.fuse_stall" "$out/log")
[ "$n" -eq 1 ]
ok $? "and once why the site-packages directory was not listed: on FUSE ($n)"
done_testing

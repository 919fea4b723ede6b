#!/bin/sh
# perf plugin against a local user who mounts a root-only file where the
# agent reads on its processes' behalf.  In its own user and mount
# namespaces (unshare -Urm) nobody may bind-mount any file it can name:
# over its JIT process's /tmp/perf-PID.map, and over the .gnu_debuglink
# file of a binary it runs.  Neither a "no symlink" rule nor "owned by the
# process's user or root" stops a mount: a root-only file is root's.  The
# secret must never become frame names; the log says once per file why it
# was refused; the agent keeps its cycles, CPU, memory and SIGTERM bounds.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/workloads/perf_lib.sh"
. "$top_srcdir/tests/attack_lib.sh"
perf_require
[ -x "$GP_BIN" ] || skip_all "daemon not built"
command -v setpriv >/dev/null || skip_all "setpriv(1) missing"
command -v unshare >/dev/null || skip_all "unshare(1) missing"
command -v objcopy >/dev/null || skip_all "objcopy(1) missing"
NOBODY="--reuid=65534 --regid=65534 --clear-groups"
# shellcheck disable=SC2086
setpriv $NOBODY unshare -Urm true 2>/dev/null ||
    skip_all "unprivileged user namespaces are disabled here"
tap_tmpdir
chmod 0755 "$TMP"
mkdir -p "$TMP/pub/bin" "$TMP/sec"
chmod 0777 "$TMP/pub"
chmod 0700 "$TMP/sec"

# The debug-file attack's binary: perf_busy without symbols, its
# .gnu_debuglink naming busy.debug beside it.  busy.debug there is an
# empty root file (the mount point); the root-only secret one is perf_busy
# with its hot functions renamed.
objcopy --redefine-sym hot_fifty=stolen_debug_fifty \
    --redefine-sym hot_thirty=stolen_debug_thirty \
    --redefine-sym hot_twenty=stolen_debug_twenty \
    "$WL/perf_busy" "$TMP/sec/busy.debug" &&
    chmod 0600 "$TMP/sec/busy.debug" &&
    objcopy --strip-all --add-gnu-debuglink="$TMP/sec/busy.debug" \
    "$WL/perf_busy" "$TMP/pub/bin/busy" && : >"$TMP/pub/bin/busy.debug"
ok $? "a stripped binary whose debuglink names a file beside it"
chmod 0755 "$TMP/pub/bin" "$TMP/pub/bin/busy"
chmod 0644 "$TMP/pub/bin/busy.debug"
# Moved out of reach once the binary carries its CRC: only a mount can
# bring it back.
mv "$TMP/sec/busy.debug" "$TMP/secret.debug"
chmod 0600 "$TMP/secret.debug"

# The attacker, as nobody in its own user and mount namespaces: a JIT
# process writes its map, then (once the root-only file exists) the file
# is mounted over the map; and the stripped binary runs with the secret
# mounted over its debug file.
# shellcheck disable=SC2086,SC2016
setpriv $NOBODY unshare -Urm sh -c '
	wl=$1 pub=$2 secret=$3 secretdbg=$4
	"$wl/perf_jit" -t 30 &
	j=$!
	i=0
	while [ ! -s /tmp/perf-$j.map ] && [ $i -lt 100 ]; do
		sleep 0.05; i=$((i + 1))
	done
	head -1 /tmp/perf-$j.map >"$pub/line.tmp" && mv "$pub/line.tmp" "$pub/line"
	while [ ! -e "$pub/go" ]; do sleep 0.05; done
	mount --bind "$secret" /tmp/perf-$j.map &&
	    mount --bind "$secretdbg" "$pub/bin/busy.debug" &&
	    echo $j >"$pub/mounted"
	"$pub/bin/busy" -t 30 &
	echo $! >"$pub/busy"
	wait' sh "$WL" "$TMP/pub" "$TMP/secret.map" "$TMP/secret.debug" \
    >"$TMP/attacker.log" 2>&1 &
attacker=$!
i=0
while [ ! -s "$TMP/pub/line" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
line=$(cat "$TMP/pub/line" 2>/dev/null)
[ -n "$line" ]
ok $? "the attacker's JIT process wrote its perf map ($line)"
printf '%s f stolen_map_secret\n' "${line%% *}" >"$TMP/secret.map"
chmod 0600 "$TMP/secret.map"
touch "$TMP/pub/go"
i=0
while [ ! -s "$TMP/pub/busy" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
jit=$(cat "$TMP/pub/mounted" 2>/dev/null)
busy=$(cat "$TMP/pub/busy" 2>/dev/null)
if [ -z "$jit" ] || [ -z "$busy" ]; then
	sed 's/^/# /' "$TMP/attacker.log"
	kill $attacker 2>/dev/null
	skip_all "could not mount in a user namespace here"
fi
ok 0 "nobody mounted the root-only files over its map and debug file"
grep -q stolen_map_secret "/proc/$jit/root/tmp/perf-$jit.map"
ok $? "(the agent's way in, /proc/$jit/root, shows the secret there)"

# A control: another JIT process of nobody's, its map its own.
# shellcheck disable=SC2086
setpriv $NOBODY "$WL/perf_jit" -t 30 &
ctl=$!
perf_wait_exec $ctl perf_jit
i=0
while [ ! -s /tmp/perf-$ctl.map ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
# Both JIT processes' maps outlive them: removed with the test's files.
trap 'kill $ctl $attacker $jit $busy 2>/dev/null
    rm -rf "$TMP" /tmp/perf-$jit.map /tmp/perf-$ctl.map' EXIT

out=$TMP/out
attack_start "$out" 3 -f 99 --perf-mode fp --pids "$jit,$busy,$ctl"
sleep 12
cat "$out"/profile_*.col >"$TMP/all.col" 2>/dev/null
! grep -q stolen_map_secret "$TMP/all.col"
ok $? "the root-only file mounted as a perf map never shows in a profile"
! grep -q stolen_debug "$TMP/all.col"
ok $? "nor the symbols of the one mounted as a debug file"
n=$(grep -c "pid $jit: perf map /tmp/perf-$jit.map (in its root) refused: not readable by the process's own user" "$out/log")
[ "$n" -eq 1 ]
ok $? "the log says once why the perf map was refused ($n)"
n=$(grep -c "pid $busy: debug file .*busy.debug refused: not readable by the process's own user" "$out/log")
[ "$n" -eq 1 ]
ok $? "and once why the debug file was ($n)"
grep -q "jit_spin_loop_\[j\]" "$TMP/all.col"
ok $? "nobody's own perf map still names its JIT frames"
grep -q "perf_jit" "$TMP/all.col" && grep -q "busy" "$TMP/all.col"
ok $? "the attacker's processes were profiled"
attack_checks "$out" 3
grep 'refused\|WARN' "$out/log" | head -10 | sed 's/^/# /'

kill $ctl $attacker 2>/dev/null
kill "$jit" "$busy" 2>/dev/null
wait 2>/dev/null
done_testing

#!/bin/sh
# The Debian package, end to end, as a packager and an SRE would use it:
# build it, lint it, install it, run the installed agent the way its systemd
# unit does (same capabilities, no new privileges, same directories) with a
# third-party plugin built against gprofiler-plugin-dev, reinstall over a
# modified configuration, then purge and check that nothing of ours is left.
# Changes the machine (dpkg -i): run by .ci/run, not by make check.
#   tests/package/deb.sh SRCDIR
. "$1/tests/tap.sh"
src=$(cd "$1" && pwd)
[ "$(id -u)" -eq 0 ] || skip_all "needs root"
command -v dpkg-buildpackage >/dev/null || skip_all "dpkg-dev is not installed"
if dpkg -s gprofiler >/dev/null 2>&1; then
	skip_all "a gprofiler package is installed already; not touching it"
fi
tap_tmpdir
ver=$(sed -n 's/^AC_INIT(\[gprofiler\], \[\([^]]*\)\].*/\1/p' "$src/configure.ac")

# Build from the committed tree (a clean checkout, as a packager has it).
mkdir -p "$TMP/b/gprofiler-$ver"
if [ -d "$src/.git" ] || [ -f "$src/.git" ]; then
	git -C "$src" archive HEAD | tar -x -C "$TMP/b/gprofiler-$ver"
else
	(cd "$src" && tar -c --exclude=./build --exclude=./build-asan .) |
	    tar -x -C "$TMP/b/gprofiler-$ver"
fi
(cd "$TMP/b/gprofiler-$ver" && dpkg-buildpackage -us -uc -b -j2) \
    >"$TMP/build.log" 2>&1
st=$?
ok $st "dpkg-buildpackage -us -uc -b"
[ $st -eq 0 ] || { tail -30 "$TMP/build.log" | sed 's/^/# /'; done_testing; exit 1; }
deb=$TMP/b/gprofiler_${ver}_amd64.deb
dev=$TMP/b/gprofiler-plugin-dev_${ver}_amd64.deb
if command -v lintian >/dev/null; then
	lintian --allow-root "$TMP/b/gprofiler_${ver}_amd64.changes" \
	    >"$TMP/lintian" 2>&1
	! grep -q '^E:' "$TMP/lintian"
	ok $? "lintian reports no errors"
	sed 's/^/# /' "$TMP/lintian"
else
	skip "lintian reports no errors" "lintian is not installed"
fi
! dpkg -c "$deb" | grep -q '\.la$'
ok $? "no .la files in the package"

dpkg -i "$deb" "$dev" >"$TMP/install.log" 2>&1
ok $? "both packages install"
[ -x /usr/sbin/gprofiler ] && [ -f /usr/lib/gprofiler/perf.so ]
ok $? "daemon and plugins in place"
[ "$(stat -c %a /etc/gprofiler/gprofiler.conf)" = 600 ]
ok $? "the configuration is installed 0600"
grep -qx /etc/gprofiler/gprofiler.conf /var/lib/dpkg/info/gprofiler.conffiles
ok $? "the configuration is a conffile"
man -w gprofiler >/dev/null 2>&1 && man -w 5 gprofiler.conf >/dev/null 2>&1 &&
    man -w 7 gprofiler-plugin >/dev/null 2>&1
ok $? "man gprofiler, gprofiler.conf(5), gprofiler-plugin(7) are found"
unit=/lib/systemd/system/gprofiler.service
score=$(systemd-analyze security --offline=yes "$unit" 2>/dev/null |
    sed -n 's/.*Overall exposure level for .*: \([0-9.]*\).*/\1/p')
diag "systemd-analyze security: $score"
[ -n "$score" ] && awk "BEGIN { exit !($score <= 4.0) }"
ok $? "the unit's exposure score is at most 4.0 ($score)"

# A third-party plugin, built with only the -dev package: pkg-config
# kept to the system's directories (an agent installed from source under
# /usr/local, as the README's quick start does, puts its own .pc first).
cp -r "$src/docs/examples/loadavg" "$TMP/loadavg"
ma=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null)
pcdirs=/usr/lib/$ma/pkgconfig:/usr/lib/pkgconfig:/usr/share/pkgconfig
PKG_CONFIG_LIBDIR=$pcdirs make -s -C "$TMP/loadavg" >"$TMP/plugin.log" 2>&1 &&
    PKG_CONFIG_LIBDIR=$pcdirs make -s -C "$TMP/loadavg" install \
    >>"$TMP/plugin.log" 2>&1
ok $? "a third-party plugin builds against gprofiler-plugin-dev and installs"
[ -f /usr/lib/gprofiler/loadavg.so ]
ok $? "it is in /usr/lib/gprofiler"

# Run as the unit does (tests/package/unit_sandbox.sh: its environment,
# directories, ProtectSystem=strict, capabilities, no new privileges), its
# command lines; short cycles instead of 60 s.
sandbox="$src/tests/package/unit_sandbox.sh"
spec() { sh "$sandbox" "$unit" --print "$1"; }
exec_start=$(spec ExecStart)
exec_pre=$(spec ExecStartPre | sed 's/^-//')
grep -q '^NoNewPrivileges=yes' "$unit"; ok $? "the unit sets NoNewPrivileges"
grep -q '^ProtectSystem=strict' "$unit"; ok $? "the unit sets ProtectSystem=strict"
tmpdir=$(spec Environment | sed -n 's/^TMPDIR=//p')
[ -n "$tmpdir" ]; ok $? "the unit gives the agent a TMPDIR of its own ($tmpdir)"
# What an agent made to exit at once leaves: gone at the next start.
mkdir -p "$tmpdir/gprofiler-perfspect.stale/perfspect.x" 2>/dev/null
# shellcheck disable=SC2086
sh "$sandbox" "$unit" $exec_pre && [ -d "$tmpdir" ] &&
    [ -z "$(ls -A "$tmpdir")" ]
ok $? "its ExecStartPre runs in the sandbox and empties it ($exec_pre)"
# A busy Python program of another user: its stacks need CAP_SYS_PTRACE.
py=/usr/bin/python3
[ -x "$py" ] || py=$PYTHON3
setpriv --reuid=nobody --regid=nogroup --clear-groups "$py" -c '
def spin():
    while True:
        sum(range(100000))
spin()' >/dev/null 2>&1 &
busy=$!
# Kernel frames in the 5 s cycle whatever else the host does.
"$py" "$src/tests/workloads/kernel_busy.py" >/dev/null 2>&1 &
kbusy=$!
sleep 2
# shellcheck disable=SC2086
GPROFILER_PROFILING_DURATION=5 GPROFILER_LOCK_NAME=gptest-deb-$$ \
    sh "$sandbox" "$unit" $exec_start >"$TMP/agent.log" 2>&1 &
agent=$!
i=0
while [ $i -lt 60 ] && [ ! -s /var/lib/gprofiler/output/last_profile.col ]; do
	sleep 1; i=$((i + 1))
done
kill -TERM $agent 2>/dev/null
wait $agent
st=$?
kill $busy $kbusy 2>/dev/null
col=/var/lib/gprofiler/output/last_profile.col
[ -s "$col" ]; ok $? "the installed agent wrote a profile under the unit's limits"
grep -q '_\[k\]' "$col"; r=$?
ok $r "with kernel frames (BPF sampler loaded with the unit's capabilities)"
[ $r -eq 0 ] || sed 's/^/# /' "$TMP/agent.log" | head -40
grep -q 'spin (<string>:[0-9]*)_\[p\]' "$col"; ok $? "with Python frames of another user's process (CAP_SYS_PTRACE)"
head -1 "$col" | grep -q '"loadavg_1m"'; ok $? "with the third-party plugin's metadata"
[ $st -eq 0 ]; ok $? "it stops cleanly on SIGTERM (status $st)"
[ $st -eq 0 ] || tail -20 "$TMP/agent.log" | sed 's/^/# /'

# PerfSpect in the same sandbox: the project's fake, at its real timing
# (7 s of set-up, a row each 5 s), which unpacks tools it runs into its
# temp directory as PerfSpect does.  Its directory and the agent's must be
# writable and allow exec, and be gone at exit.  At -d 10 the second cycle
# is the first whose window holds rows.
metrics_ok() { head -1 "$col" 2>/dev/null | grep -q '"perfspect_status": *"ok"'; }
rm -f "$col"
# shellcheck disable=SC2086
GPROFILER_PROFILING_DURATION=10 GPROFILER_LOCK_NAME=gptest-deb-ps-$$ \
    sh "$sandbox" "$unit" $exec_start \
    --enable-hw-metrics-collection \
    --perfspect-path "$src/tests/fakes/fake_perfspect" >"$TMP/ps.log" 2>&1 &
agent=$!
i=0
while [ $i -lt 90 ] && ! metrics_ok; do sleep 1; i=$((i + 1)); done
kill -TERM $agent 2>/dev/null
wait $agent
st=$?
metrics_ok; r=$?
ok $r "PerfSpect in the sandbox: the profile has its hardware metrics"
[ $r -eq 0 ] || { head -1 "$col" 2>/dev/null | grep -o '"perfspect_[a-z]*": *"[^"]*"' |
    sed 's/^/# /'; grep -i perfspect "$TMP/ps.log" | tail -10 | sed 's/^/# /'; }
left=$(find "$tmpdir" -mindepth 1 2>/dev/null | head -3)
[ $st -eq 0 ] && [ -z "$left" ]
ok $? "it stops cleanly, its and PerfSpect's directories gone (status $st${left:+, left: $left})"

# Upgrade over a modified configuration.
echo "# changed by the administrator" >>/etc/gprofiler/gprofiler.conf
dpkg -i "$deb" >"$TMP/upgrade.log" 2>&1
ok $? "reinstalling over a modified configuration succeeds non-interactively"
grep -q "changed by the administrator" /etc/gprofiler/gprofiler.conf
ok $? "the administrator's configuration is kept"
[ -f /usr/lib/gprofiler/loadavg.so ]; ok $? "the third-party plugin survives the upgrade"

dpkg --purge gprofiler gprofiler-plugin-dev >"$TMP/purge.log" 2>&1
ok $? "purge succeeds"
left=$(for f in /usr/sbin/gprofiler /usr/lib/gprofiler/perf.so \
    /usr/lib/gprofiler/perf.plugin /etc/gprofiler /lib/systemd/system/gprofiler.service \
    /var/lib/gprofiler /var/log/gprofiler /run/gprofiler \
    /usr/include/gprofiler /usr/share/gprofiler /etc/logrotate.d/gprofiler; do
	[ -e "$f" ] && echo "$f"; done)
[ -z "$left" ]; ok $? "purge leaves nothing of the package behind"
[ -n "$left" ] && diag "left: $left"
[ -f /usr/lib/gprofiler/loadavg.so ] && [ -f /usr/lib/gprofiler/loadavg.plugin ]
ok $? "the third-party plugin survives the purge"
rm -f /usr/lib/gprofiler/loadavg.so /usr/lib/gprofiler/loadavg.plugin
rmdir /usr/lib/gprofiler 2>/dev/null
done_testing

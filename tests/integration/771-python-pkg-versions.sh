#!/bin/sh
# Package versions in Python frames (gProfiler's default; docs/COMPAT.md):
# a CPython runs functions of two installed distributions it imports from
# a site-packages directory written here — one with a *.dist-info
# (METADATA, RECORD), one with an old *.egg-info (PKG-INFO,
# installed-files.txt) — a file of that directory no distribution lists,
# and the standard library.  Each frame must end as gProfiler writes it,
# "(file:line [name==version])", the name from METADATA rather than the
# directory; the unlisted file gets nothing; the standard library gets
# "[standard-library==X.Y.Z]".  With --no-python-versions no frame has one,
# and the flag is not named as having no effect.  FIFOs and links among
# the distributions change nothing.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/workloads/py_lib.sh"
[ "$(id -u)" -eq 0 ] || skip_all "needs root"
[ -x "$GP_BIN" ] || skip_all "no daemon"
py=$(py_interps | awk '$1 == "3.11" || $1 == "3.12" { print $2; exit }')
[ -n "$py" ] || py=$(py_interps | awk 'NR == 1 { print $2 }')
[ -n "$py" ] || skip_all "no CPython 3.8-3.13"
tap_tmpdir
sp="$TMP/venvless/lib/site-packages"
mkdir -p "$sp/gpv_pkg" "$sp/gpv_pkg-1.2.3.dist-info" "$sp/legpkg" \
    "$sp/legpkg-0.9.1-py3.11.egg-info"
cat >"$sp/gpv_pkg/__init__.py" <<'PY'
PY
cat >"$sp/gpv_pkg/hot.py" <<'PY'
def pkg_hot(n):
    s = 0
    for i in range(n):
        s += i * i
    return s
PY
cat >"$sp/gpv_pkg/unlisted.py" <<'PY'
def unlisted_hot(n):
    s = 0
    for i in range(n):
        s += i ^ 7
    return s
PY
# The directory says gpv_pkg, METADATA says GPV-Pkg: gProfiler takes
# METADATA's Name and the directory's version.
printf 'Metadata-Version: 2.1\nName: GPV-Pkg\nVersion: 1.2.3\n\nA package.\n' \
    >"$sp/gpv_pkg-1.2.3.dist-info/METADATA"
printf 'gpv_pkg/__init__.py,sha256=x,0\ngpv_pkg/hot.py,sha256=y,80\ngpv_pkg-1.2.3.dist-info/RECORD,,\n' \
    >"$sp/gpv_pkg-1.2.3.dist-info/RECORD"
cat >"$sp/legpkg/__init__.py" <<'PY'
PY
cat >"$sp/legpkg/work.py" <<'PY'
def legacy_hot(n):
    s = 0
    for i in range(n):
        s += i + 3
    return s
PY
printf 'Metadata-Version: 1.1\nName: legpkg\nVersion: 0.9.1\n' \
    >"$sp/legpkg-0.9.1-py3.11.egg-info/PKG-INFO"
printf '../legpkg/__init__.py\n../legpkg/work.py\nPKG-INFO\n' \
    >"$sp/legpkg-0.9.1-py3.11.egg-info/installed-files.txt"
# Hostile neighbours: a distribution whose METADATA and RECORD are FIFOs
# (never opened for reading: nothing blocks), one whose RECORD is a link
# to /etc/passwd (resolved inside the process's root; its lines are only
# ever compared with frames' files), a FIFO named like a distribution.
mkdir -p "$sp/fifo_pkg-1.0.dist-info" "$sp/link_pkg-2.0.dist-info"
mkfifo "$sp/fifo_pkg-1.0.dist-info/METADATA" \
    "$sp/fifo_pkg-1.0.dist-info/RECORD" "$sp/named-1.0.dist-info"
printf 'Name: link_pkg\n' >"$sp/link_pkg-2.0.dist-info/METADATA"
ln -s /etc/passwd \
    "$sp/link_pkg-2.0.dist-info/RECORD"
cat >"$TMP/main_pv.py" <<'PY'
import json, sys
from gpv_pkg.hot import pkg_hot
from gpv_pkg.unlisted import unlisted_hot
from legpkg.work import legacy_hot
data = [{"k%d" % i: [i, str(i), None]} for i in range(300)]
print("ready", flush=True)
while True:
    pkg_hot(20000)
    unlisted_hot(20000)
    legacy_hot(20000)
    for _ in range(20):
        json.dumps(data, indent=1)
PY
PYTHONPATH="$sp" "$py" "$TMP/main_pv.py" >"$TMP/ready" 2>&1 &
wl=$!
trap 'kill $wl 2>/dev/null; rm -rf "$TMP"' EXIT
py_wait_ready "$TMP/ready"
ok $? "workload started ($py)"
# The same path in another mount namespace holds another version: the
# index is per namespace, read in each process's root.
alt="$TMP/alt"
mkdir -p "$alt"
cp -a "$sp/gpv_pkg" "$sp/legpkg" "$sp/legpkg-0.9.1-py3.11.egg-info" "$alt/"
mkdir "$alt/gpv_pkg-9.9.9.dist-info"
sed 's/1\.2\.3/9.9.9/' "$sp/gpv_pkg-1.2.3.dist-info/METADATA" \
    >"$alt/gpv_pkg-9.9.9.dist-info/METADATA"
cp "$sp/gpv_pkg-1.2.3.dist-info/RECORD" "$alt/gpv_pkg-9.9.9.dist-info/"
ns=
if unshare -m --propagation private true 2>/dev/null; then
	unshare -m --propagation private sh -c 'mount --bind "$1" "$2" &&
	    PYTHONPATH="$2" exec "$3" "$4"' sh "$alt" "$sp" "$py" \
	    "$TMP/main_pv.py" >"$TMP/ready.ns" 2>&1 &
	ns=$!
	trap 'kill $wl $ns 2>/dev/null; rm -rf "$TMP"' EXIT
	py_wait_ready "$TMP/ready.ns"
	ok $? "workload in its own mount namespace started"
fi
ver=$("$py" -c 'import platform; print(platform.python_version())')

py_profile "$TMP/on" 5 -f 99
rc=$?
# (it failed once under ASan, "Aborted", and never again: its end kept)
[ $rc -eq 0 ] || diag "$(tail -40 "$TMP/on/log")"
[ $rc -eq 0 ]
ok $? "one cycle, versions on (the default)"
col="$TMP/on/last_profile.col"
[ -s "$col" ]
ok $? "profile written"
# one stack of each kind, for the log
for w in pkg_hot legacy_hot unlisted_hot encoder.py; do
	diag "$(grep -a "$w" "$col" | sort -t' ' -k2 -n | tail -1 |
	    tr ';' '\n' | grep -a "$w" | head -1)"
done
grep -aqE "pkg_hot \($sp/gpv_pkg/hot\.py:[0-9]+ \[GPV-Pkg==1\.2\.3\]\)_\[p\]" \
    "$col"
ok $? "dist-info: (file:line [GPV-Pkg==1.2.3]), Name from METADATA"
grep -aqE "legacy_hot \($sp/legpkg/work\.py:[0-9]+ \[legpkg==0\.9\.1\]\)_\[p\]" \
    "$col"
ok $? "egg-info: installed-files.txt relative to the egg-info directory"
grep -aqE "unlisted_hot \($sp/gpv_pkg/unlisted\.py:[0-9]+\)_\[p\]" "$col"
ok $? "a file no distribution lists: no tag"
grep -aqE "/json/encoder\.py:[0-9]+ \[standard-library==$ver\]\)_\[p\]" \
    "$col"
ok $? "standard library: [standard-library==$ver]"
grep -aqE "<module> \($TMP/main_pv\.py:[0-9]+\)_\[p\]" "$col"
ok $? "the script itself (no packages directory): no tag"
if [ -n "$ns" ]; then
	grep -aqE "pkg_hot \($sp/gpv_pkg/hot\.py:[0-9]+ \[GPV-Pkg==9\.9\.9\]\)_\[p\]" "$col"
	ok $? "the same file in the other mount namespace: [GPV-Pkg==9.9.9]"
else
	skip "mount namespace" "unshare -m is not permitted here"
fi
! grep -aq "no effect here:.*no-python-versions" "$TMP/on/log"
ok $? "not named as a no-op"

py_profile "$TMP/off" 5 -f 99 --no-python-versions
ok $? "one cycle with --no-python-versions"
col="$TMP/off/last_profile.col"
grep -aqE "pkg_hot \($sp/gpv_pkg/hot\.py:[0-9]+\)_\[p\]" "$col"
ok $? "the package's frame without its version"
! grep -aqE '\.py:[0-9]+ \[' "$col"
ok $? "no frame has a version"
! grep -aq "no effect here:.*no-python-versions" "$TMP/off/log"
ok $? "--no-python-versions not named as a no-op"
done_testing

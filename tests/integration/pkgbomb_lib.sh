# A local user's attack on the package-version index (340-python-pkg-egg-
# bomb, 350-python-pkg-record-bomb): as nobody, a site-packages on the
# sys.path of a real CPython holding 120 distributions whose file list
# (installed-files.txt of *.egg-info, or RECORD of *.dist-info) is a
# symlink to one 16 MiB list of long distinct *.py names, the process busy
# in a module of that directory, so the Python plugin samples it and
# indexes the directory.  A second, ordinary site-packages on the same
# sys.path holds a normal egg-info distribution whose version must still
# reach its frames.  Checked: tests/attack_lib.sh's bounds (cycles on
# time, agent CPU <= 2 s, peak RSS <= 64 MiB, SIGTERM within 2 s), one
# log line naming the directory and what the index left out, and the
# agent's resident memory falling once the process is gone.
#
#   pkgbomb_run egg|record
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/attack_lib.sh"
. "$top_srcdir/tests/workloads/py_lib.sh"

pkgbomb_rss_kb() {
	awk '$1 == "VmRSS:" { print $2 }' "/proc/$1/status" 2>/dev/null
}

pkgbomb_run() {
	kind=$1
	[ "$(id -u)" -eq 0 ] || skip_all "needs root"
	[ -x "$GP_BIN" ] || skip_all "no daemon"
	command -v setpriv >/dev/null || skip_all "setpriv(1) missing"
	py=/usr/bin/python3.11
	[ -x "$py" ] || py=$(py_interps | awk 'NR == 1 { print $2 }')
	[ -n "$py" ] || skip_all "no CPython 3.8-3.13"
	tap_tmpdir
	chmod 0755 "$TMP"
	mkdir "$TMP/home" && chown 65534:65534 "$TMP/home"
	nobody="setpriv --reuid=65534 --regid=65534 --clear-groups"
	# Everything below is written by nobody.
	$nobody "$py" - "$TMP/home" "$kind" <<'PY'
import os, sys
top, kind = sys.argv[1], sys.argv[2]
bomb = os.path.join(top, "bomb/lib/site-packages")
good = os.path.join(top, "good/lib/site-packages")
for d in (bomb, good):
    os.makedirs(d)
os.makedirs(os.path.join(bomb, "bombmod"))
open(os.path.join(bomb, "bombmod/__init__.py"), "w").close()
with open(os.path.join(bomb, "bombmod/hot.py"), "w") as f:
    f.write("def bomb_hot(n):\n    s = 0\n"
            "    for i in range(n):\n        s += i * i\n    return s\n")
# One 16 MiB list of distinct long names of Python files.
pad = "x" * 200
with open(os.path.join(bomb, "biglist"), "w") as f:
    i, size = 0, 0
    while size < (16 << 20) - 300:
        if kind == "record":
            line = "bomb%07d/%s.py,sha256=%064d,1234\n" % (i, pad, i)
        else:
            line = "bomb%07d/%s.py\n" % (i, pad)
        f.write(line)
        size += len(line)
        i += 1
for n in range(120):
    if kind == "record":
        d = os.path.join(bomb, "bomb%03d-1.0.dist-info" % n)
        os.makedirs(d)
        with open(os.path.join(d, "METADATA"), "w") as f:
            f.write("Metadata-Version: 2.1\nName: bomb%03d\n"
                    "Version: 1.0\n" % n)
        os.symlink("../biglist", os.path.join(d, "RECORD"))
    else:
        d = os.path.join(bomb, "bomb%03d-1.0-py3.11.egg-info" % n)
        os.makedirs(d)
        with open(os.path.join(d, "PKG-INFO"), "w") as f:
            f.write("Metadata-Version: 1.1\nName: bomb%03d\n"
                    "Version: 1.0\n" % n)
        os.symlink("../biglist",
                   os.path.join(d, "installed-files.txt"))
# The ordinary distribution, beside.
os.makedirs(os.path.join(good, "goodpkg"))
os.makedirs(os.path.join(good, "goodpkg-0.9.1-py3.11.egg-info"))
open(os.path.join(good, "goodpkg/__init__.py"), "w").close()
with open(os.path.join(good, "goodpkg/work.py"), "w") as f:
    f.write("def good_hot(n):\n    s = 0\n"
            "    for i in range(n):\n        s += i + 3\n    return s\n")
with open(os.path.join(good, "goodpkg-0.9.1-py3.11.egg-info/PKG-INFO"),
          "w") as f:
    f.write("Metadata-Version: 1.1\nName: goodpkg\nVersion: 0.9.1\n")
with open(os.path.join(good,
          "goodpkg-0.9.1-py3.11.egg-info/installed-files.txt"), "w") as f:
    f.write("../goodpkg/__init__.py\n../goodpkg/work.py\nPKG-INFO\n")
with open(os.path.join(top, "main.py"), "w") as f:
    f.write("from bombmod.hot import bomb_hot\n"
            "from goodpkg.work import good_hot\n"
            "print('ready', flush=True)\n"
            "while True:\n    bomb_hot(20000)\n    good_hot(20000)\n")
PY
	ok $? "nobody wrote a site-packages of 120 $kind distributions sharing one 16 MiB list"
	bomb="$TMP/home/bomb/lib/site-packages"
	good="$TMP/home/good/lib/site-packages"
	(cd "$TMP/home" && PYTHONPATH="$good:$bomb" exec $nobody "$py" main.py \
	    >"$TMP/ready" 2>&1) &
	wl=$!
	trap 'kill $wl 2>/dev/null; kill -KILL $AGENT_PID 2>/dev/null;
	    rm -rf "$TMP"' EXIT
	py_wait_ready "$TMP/ready"
	ok $? "the process (nobody, $py) runs code of that site-packages"
	out="$TMP/out"
	# Only this process: other processes of the host are not this test's.
	attack_start "$out" 3 --pids "$wl"
	sleep 15
	rss0=$(pkgbomb_rss_kb "$AGENT_PID")
	kill "$wl" 2>/dev/null
	wait "$wl" 2>/dev/null
	# Its process gone, the directory's index is dropped at the next
	# snapshot and the memory returned (the perf plugin trims the heap
	# after the cycle).
	sleep 7
	rss1=$(pkgbomb_rss_kb "$AGENT_PID")
	diag "agent RSS ${rss0:-?} KiB with the process, ${rss1:-?} KiB after it exited"
	attack_checks "$out" 3
	grep -a "package versions" "$out/log" | head -5 | sed 's/^/# /'
	grep -aq "package versions: $bomb/.*index is full (12 MiB for one packages directory, 16 MiB for all" "$out/log"
	ok $? "one log line names the directory and the budget"
	n=$(grep -ac "package versions: $bomb/.*index is full" "$out/log")
	[ "$n" -eq 1 ]
	ok $? "said once ($n lines)"
	grep -aqE "good_hot \($good/goodpkg/work\.py:[0-9]+ \[goodpkg==0\.9\.1\]\)" \
	    "$out"/profile_*.col
	ok $? "the ordinary distribution beside still has its version"
	grep -aqE "bomb_hot \($bomb/bombmod/hot\.py:[0-9]+" \
	    "$out"/profile_*.col
	ok $? "the attacker's process is profiled"
	if asan_build; then
		skip "RSS fell once the process exited" "ASan build"
	else
		[ -n "$rss0" ] && [ -n "$rss1" ] &&
		    [ "$rss1" -le $((rss0 - 4096)) ]
		ok $? "RSS fell by 4 MiB or more once the process exited (${rss0:-?} -> ${rss1:-?} KiB)"
	fi
	done_testing
}

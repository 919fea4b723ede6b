#!/bin/sh
# Python plugin through the daemon, against config files a local user
# controls: the app id of a process started as "uwsgi app.ini" reads that
# ini file from the process's working directory.  When it is a FIFO (a
# plain open() blocked the agent forever) the agent must keep cycling;
# when it is a symlink to a file the process's user cannot read, its
# content must never reach the profile.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/workloads/py_lib.sh"
[ "$(id -u)" -eq 0 ] || skip_all "needs root"
[ -x "$GP_BIN" ] || skip_all "no daemon"
command -v setpriv >/dev/null || skip_all "setpriv(1) missing"
py=/usr/bin/python3.11
[ -x "$py" ] || py=$(py_interps | awk 'NR == 1 { print $2 }')
[ -n "$py" ] || skip_all "no CPython 3.8-3.13"
tap_tmpdir
chmod 0755 "$TMP"

cat >"$TMP/app.py" <<'PY'
import sys, time
def uwsgi_like_worker():
    end = time.time() + 20
    while time.time() < end:
        pass
print("ready", flush=True)
uwsgi_like_worker()
PY
# argv[0] "uwsgi" (what the app id rule looks at), the interpreter's
# executable (what discovery looks at).
asuwsgi='import os, sys; os.execv(sys.argv[1], ["uwsgi"] + sys.argv[2:])'
# A FIFO as the ini file.
mkdir -p "$TMP/fifo" && mkfifo "$TMP/fifo/app.ini"
(cd "$TMP/fifo" && exec "$py" -c "$asuwsgi" "$py" "$TMP/app.py" app.ini \
    >"$TMP/ready.fifo" 2>&1) &
p1=$!
# A symlink to a root-only ini naming a secret module, process as nobody.
mkdir -p "$TMP/link"
printf '[uwsgi]\nmodule = secret_module_name\n' >"$TMP/root-only.ini"
chmod 0600 "$TMP/root-only.ini"
ln -s "$TMP/root-only.ini" "$TMP/link/app.ini"
(cd "$TMP/link" && exec setpriv --reuid=65534 --regid=65534 \
    --clear-groups "$py" -c "$asuwsgi" "$py" "$TMP/app.py" app.ini \
    >"$TMP/ready.link" 2>&1) &
p2=$!
trap 'kill $p1 $p2 2>/dev/null; rm -rf "$TMP"' EXIT
py_wait_ready "$TMP/ready.fifo"
ok $? "uwsgi-like process with a FIFO as app.ini started"
py_wait_ready "$TMP/ready.link"
ok $? "uwsgi-like process (nobody) with app.ini -> a root-only file started"

out=$TMP/out
mkdir -p "$out"
GPROFILER_LOCK_NAME="gptest-python-$$" timeout 40 "$GP_BIN" \
    --plugin-dir "$GP_PLUGIN_DIR" -o "$out" -d 3 -c --no-flamegraph -f 49 \
    >"$out/log" 2>&1 &
gp=$!
sleep 12
kill -TERM $gp 2>/dev/null
wait $gp
n=$(ls "$out"/profile_*.col 2>/dev/null | wc -l)
[ "$n" -ge 2 ]
ok $? "the agent kept cycling ($n profiles in 12 s of 3 s cycles)"
grep -aq "appid: uwsgi: app.ini" "$out"/profile_*.col
ok $? "the processes still get their app id, without the file's content"
! grep -aq secret_module_name "$out"/profile_*.col
ok $? "a root-only file behind a symlink never reaches the profile"
grep -aq "uwsgi_like_worker" "$out"/profile_*.col
ok $? "and their Python stacks are there"
done_testing

#!/bin/sh
# Auto-install of PerfSpect from a local HTTP server serving tarballs built
# here: good (installed, used, cached), wrong checksum, "..", symlink
# escaping, truncated, server down.  The run goes on in every case.
. "$top_srcdir/tests/tap.sh"
tap_tmpdir
[ "$(uname -m)" = x86_64 ] || skip_all "PerfSpect options are x86_64 only"
export FAKE_PERFSPECT_SCALE=0.2
# Children get a minimal environment: pass the fake its switches.
export GPROFILER_CHILD_ENV="FAKE_PERFSPECT_*"
mkdir -p "$TMP/www"
"$PYTHON3" - "$top_srcdir/tests/fakes/fake_perfspect" "$TMP/www" <<'PY'
import io, os, sys, tarfile
fake, www = sys.argv[1], sys.argv[2]
def tgz(name, extra=()):
    with tarfile.open(os.path.join(www, name), "w:gz") as t:
        t.add(fake, "perfspect/perfspect")
        for ti, data in extra:
            t.addfile(ti, io.BytesIO(data) if data else None)
tgz("good.tgz")
ti = tarfile.TarInfo("perfspect/../../escaped"); ti.size = 1
tgz("dotdot.tgz", [(ti, b"x")])
ti = tarfile.TarInfo("perfspect/esc"); ti.type = tarfile.SYMTYPE; ti.linkname = "../../.."
tgz("symlink.tgz", [(ti, None)])
data = open(os.path.join(www, "good.tgz"), "rb").read()
open(os.path.join(www, "trunc.tgz"), "wb").write(data[:len(data) // 2])
PY
port=$("$PYTHON3" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
"$PYTHON3" -m http.server -b 127.0.0.1 -d "$TMP/www" "$port" >/dev/null 2>&1 &
srv=$!
trap 'kill $srv 2>/dev/null; rm -rf "$TMP"' EXIT
sleep 1
good_sha=$(sha256sum "$TMP/www/good.tgz" | cut -d' ' -f1)

# install NAME TGZ SECONDS [options]
install() {
	name=$1 tgz=$2 secs=$3; shift 3
	mkdir -p "$TMP/$name"
	for try in 1 2 3 4 5 6 7 8 9 10; do
		PERFSPECT_INSTALL_DIR="$TMP/inst-$name" timeout -s TERM "$secs" \
		    "$GP_BIN" --plugin-dir "$GP_PLUGIN_DIR" -o "$TMP/$name" -d 5 -c \
		    --perfspect-url "http://127.0.0.1:$port/$tgz" \
		    --enable-hw-metrics-collection=true "$@" >"$TMP/$name.log" 2>&1
		grep -q "already running" "$TMP/$name.log" || break
		sleep 3
	done
}

# statuses NAME: perfspect_status of each profile, in order
statuses() {
	for f in $(ls "$TMP/$1"/profile_*.col | sort); do
		head -1 "$f" | "$PYTHON3" -c '
import json, sys
h = json.loads(sys.stdin.readline()[2:])
print(h["metadata"].get("perfspect_status"), "hw" if h.get("hwmetrics") else "-")'
	done
}

install good good.tgz 19 --perfspect-sha256 "$good_sha"
test -x "$TMP/inst-good/perfspect/perfspect" && \
    test "$(stat -c %u:%a "$TMP/inst-good")" = "0:755"
ok $? "good tarball: installed root-owned"
statuses good | grep "^ok hw$" >/dev/null
ok $? "good tarball: later cycles carry hwmetrics"
install good good.tgz 8
grep -q "downloading PerfSpect" "$TMP/good.log"
test $? -ne 0
ok $? "second run uses the cache (no download)"

install badsum good.tgz 8 --perfspect-sha256 \
    0000000000000000000000000000000000000000000000000000000000000000
grep -q "checksum mismatch" "$TMP/badsum.log" && \
    ! test -e "$TMP/inst-badsum/perfspect/perfspect"
ok $? "wrong checksum refused"
statuses badsum | grep "^install_failed -$" >/dev/null
ok $? "wrong checksum: header says install_failed"

install dotdot dotdot.tgz 8
grep -q 'in the path' "$TMP/dotdot.log" && ! test -e "$TMP/escaped"
ok $? "\"..\" entry refused"
install symlink symlink.tgz 8
grep -q "symbolic link pointing outside" "$TMP/symlink.log"
ok $? "escaping symlink refused"
install trunc trunc.tgz 8
grep -q "refusing" "$TMP/trunc.log" && ! test -e "$TMP/inst-trunc/perfspect/perfspect"
ok $? "truncated archive refused"
ls "$TMP/trunc"/profile_*.col >/dev/null 2>&1
ok $? "refused install: profiling went on"

kill $srv; wait $srv 2>/dev/null
install down good.tgz 8
grep -q "downloading http://127.0.0.1:$port/good.tgz failed" "$TMP/down.log"
ok $? "server down reported"
done_testing

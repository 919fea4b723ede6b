#!/bin/sh
# Auto-install of PerfSpect from a local HTTPS server (a test CA) serving
# tarballs built here: good (through redirects; installed, used, cached),
# wrong checksum, neither given nor pinned, too many redirects, a redirect
# to plain HTTP, TLS verified despite --no-verify, a plain http:// URL,
# "..", symlink escaping, truncated, server down.  The run goes on in every
# case.
. "$top_srcdir/tests/tap.sh"
tap_tmpdir
[ "$(uname -m)" = x86_64 ] || skip_all "PerfSpect options are x86_64 only"
command -v openssl >/dev/null 2>&1 || skip_all "no openssl"
unset SSL_CERT_FILE SSL_CERT_DIR CURL_CA_BUNDLE
# The fake at a fifth of PerfSpect's timing; 660-perfspect-install-realtime.sh
# runs this at real timing (7 s of set-up), the good install for longer.
export FAKE_PERFSPECT_SCALE=${FAKE_PERFSPECT_SCALE:-0.2}
PS_GOOD_SECS=${PS_GOOD_SECS:-19} PS_GOOD_CYCLE=${PS_GOOD_CYCLE:-5}
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
cat >"$TMP/ext.cnf" <<'EOC'
[srv]
subjectAltName = IP:127.0.0.1, DNS:localhost
extendedKeyUsage = serverAuth
EOC
(cd "$TMP" &&
	openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.pem \
	    -days 2 -subj "/CN=gprofiler test CA" &&
	openssl req -newkey rsa:2048 -nodes -keyout srv.key -out srv.csr \
	    -subj "/CN=127.0.0.1" &&
	openssl x509 -req -in srv.csr -CA ca.pem -CAkey ca.key \
	    -CAcreateserial -out srv.pem -days 2 -extfile ext.cnf \
	    -extensions srv) >"$TMP/openssl.log" 2>&1
ok $? "a test CA and a server certificate"
# /redir/N/F answers 302 N times before F; /tohttp/F redirects to plain HTTP.
cat >"$TMP/srv.py" <<'PY'
import http.server, os, ssl, sys
www, cert, key = sys.argv[1:4]
class H(http.server.SimpleHTTPRequestHandler):
    def __init__(self, *a, **k):
        super().__init__(*a, directory=www, **k)
    def log_message(self, *a):
        pass
    def do_GET(self):
        p = self.path.split("/")
        if len(p) == 4 and p[1] == "redir" and p[2].isdigit():
            n = int(p[2])
            self.send_response(302)
            self.send_header("Location", "/redir/%d/%s" % (n - 1, p[3]) if n > 1 else "/" + p[3])
            self.end_headers()
            return
        if len(p) == 3 and p[1] == "tohttp":
            self.send_response(302)
            self.send_header("Location", "http://127.0.0.1:%d/%s" % (self.server.server_address[1], p[2]))
            self.end_headers()
            return
        super().do_GET()
s = http.server.HTTPServer(("127.0.0.1", 0), H)
c = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
c.load_cert_chain(cert, key)
s.socket = c.wrap_socket(s.socket, server_side=True)
print(s.server_address[1], flush=True)
s.serve_forever()
PY
"$PYTHON3" "$TMP/srv.py" "$TMP/www" "$TMP/srv.pem" "$TMP/srv.key" >"$TMP/port" 2>"$TMP/srv.log" &
srv=$!
trap 'kill $srv 2>/dev/null; rm -rf "$TMP"' EXIT
# A loaded machine can take seconds to start Python and load the key.
i=0
while [ ! -s "$TMP/port" ] && [ $i -lt 120 ]; do sleep 0.25; i=$((i + 1)); done
port=$(cat "$TMP/port")
test -n "$port"
ok $? "the HTTPS server is listening"
base="https://127.0.0.1:$port"
good_sha=$(sha256sum "$TMP/www/good.tgz" | cut -d' ' -f1)

# install NAME TGZ SECONDS [options]: runs the agent SECONDS; with
# UNTIL=outcome, until the install's outcome is logged instead (SECONDS the
# bound), with UNTIL=profile until a profile is written after it: a fixed
# few seconds were not enough on a host loaded by the slow tier, where the
# agent's start-up alone can take them.
install() {
	name=$1 tgz=$2 secs=$3; shift 3
	mkdir -p "$TMP/$name"
	for try in 1 2 3 4 5 6 7 8 9 10; do
		PERFSPECT_INSTALL_DIR="$TMP/inst-$name" \
		    "$GP_BIN" --plugin-dir "$GP_PLUGIN_DIR" -o "$TMP/$name" -d 5 -c \
		    --perfspect-url "$base/$tgz" \
		    --enable-hw-metrics-collection=true "$@" >"$TMP/$name.log" 2>&1 &
		agent=$!
		install_wait "$name" "$secs" $agent
		kill -TERM $agent 2>/dev/null
		wait $agent
		grep -q "already running" "$TMP/$name.log" || break
		sleep 3
	done
}

# install_wait NAME SECONDS PID: while agent PID runs, as install's UNTIL
# says, or SECONDS
install_wait() {
	_t=0 _n=-1
	while [ $_t -lt $(($2 * 10)) ] && kill -0 "$3" 2>/dev/null; do
		if [ -n "${UNTIL:-}" ] && grep -q -e "continuing without hardware metrics" \
		    -e "PerfSpect ready" "$TMP/$1.log"; then
			[ "$UNTIL" = outcome ] && return
			_c=$(find "$TMP/$1" -maxdepth 1 -name 'profile_*.col' | wc -l)
			[ "$_n" -lt 0 ] && _n=$_c
			[ "$_c" -gt "$_n" ] && return
		fi
		sleep 0.1
		_t=$((_t + 1))
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

ca="--tls-ca-bundle $TMP/ca.pem"
sha_of() { sha256sum "$TMP/www/$1" | cut -d' ' -f1; }

# shellcheck disable=SC2086
install good redir/3/good.tgz "$PS_GOOD_SECS" $ca -d "$PS_GOOD_CYCLE" --perfspect-sha256 "$good_sha"
test -x "$TMP/inst-good/perfspect/perfspect" && \
    test "$(stat -c %u:%a "$TMP/inst-good")" = "0:755"
ok $? "good tarball behind 3 redirects: installed root-owned"
statuses good | grep "^ok hw$" >/dev/null
ok $? "good tarball: later cycles carry hwmetrics"
# shellcheck disable=SC2086
install good good.tgz 8 $ca
grep -q "downloading PerfSpect" "$TMP/good.log"
test $? -ne 0
ok $? "second run uses the cache (no download)"

# shellcheck disable=SC2086
UNTIL=profile install badsum good.tgz 60 $ca --perfspect-sha256 \
    0000000000000000000000000000000000000000000000000000000000000000
grep -q "checksum mismatch" "$TMP/badsum.log" && \
    ! test -e "$TMP/inst-badsum/perfspect/perfspect"
ok $? "wrong checksum refused"
statuses badsum | grep "^install_failed -$" >/dev/null
ok $? "wrong checksum: header says install_failed"

# Neither --perfspect-sha256 nor a pinned release: never run as root.
# shellcheck disable=SC2086
UNTIL=profile install unpinned good.tgz 60 $ca
grep -q "refusing $base/good.tgz: its sha256 $good_sha is not a PerfSpect release this agent knows" "$TMP/unpinned.log" &&
    grep -q -- "give --perfspect-sha256 $good_sha to allow it" "$TMP/unpinned.log" &&
    ! test -e "$TMP/inst-unpinned/perfspect/perfspect"
ok $? "unverified tarball refused, the log names the digest and the option that allows it"
statuses unpinned | grep "^install_failed -$" >/dev/null
ok $? "unverified tarball: header says install_failed, profiling goes on"

# shellcheck disable=SC2086
UNTIL=outcome install redir6 redir/6/good.tgz 60 $ca --perfspect-sha256 "$good_sha"
grep -qi "redirect" "$TMP/redir6.log" && ! test -e "$TMP/inst-redir6/perfspect/perfspect"
ok $? "more than 5 redirects refused"
# shellcheck disable=SC2086
UNTIL=outcome install tohttp tohttp/good.tgz 60 $ca --perfspect-sha256 "$good_sha"
grep -q "downloading $base/tohttp/good.tgz failed" "$TMP/tohttp.log" &&
    ! test -e "$TMP/inst-tohttp/perfspect/perfspect"
ok $? "a redirect to plain HTTP refused"
UNTIL=outcome install noverify good.tgz 60 --no-verify --perfspect-sha256 "$good_sha"
grep -q "downloading $base/good.tgz failed" "$TMP/noverify.log" &&
    grep -qi "certificate" "$TMP/noverify.log" &&
    ! test -e "$TMP/inst-noverify/perfspect/perfspect"
ok $? "--no-verify (the Studio's) leaves the download's TLS verification on"
"$GP_BIN" --plugin-dir "$GP_PLUGIN_DIR" -o "$TMP" -d 5 \
    --perfspect-url "http://127.0.0.1:$port/good.tgz" \
    --enable-hw-metrics-collection=true >"$TMP/plain.log" 2>&1
test $? -eq 2 && grep -q "downloaded over HTTPS only" "$TMP/plain.log"
ok $? "a plain http:// --perfspect-url is a usage error"

# shellcheck disable=SC2086
UNTIL=outcome install dotdot dotdot.tgz 60 $ca --perfspect-sha256 "$(sha_of dotdot.tgz)"
grep -q 'in the path' "$TMP/dotdot.log" && ! test -e "$TMP/escaped"
ok $? "\"..\" entry refused"
# shellcheck disable=SC2086
UNTIL=outcome install symlink symlink.tgz 60 $ca --perfspect-sha256 "$(sha_of symlink.tgz)"
grep -q "symbolic link pointing outside" "$TMP/symlink.log"
ok $? "escaping symlink refused"
# shellcheck disable=SC2086
UNTIL=profile install trunc trunc.tgz 60 $ca --perfspect-sha256 "$(sha_of trunc.tgz)"
grep -q "refusing" "$TMP/trunc.log" && ! test -e "$TMP/inst-trunc/perfspect/perfspect"
ok $? "truncated archive refused"
ls "$TMP/trunc"/profile_*.col >/dev/null 2>&1
ok $? "refused install: profiling went on"

kill $srv; wait $srv 2>/dev/null
# shellcheck disable=SC2086
UNTIL=outcome install down good.tgz 60 $ca --perfspect-sha256 "$good_sha"
grep -q "downloading $base/good.tgz failed" "$TMP/down.log"
ok $? "server down reported"
done_testing

#!/bin/sh
# TLS to the backend: certificates are verified by default, so a server
# with a certificate from a private CA is refused without --tls-ca-bundle
# and accepted with it; --no-verify also gets through.  mTLS: a server that
# requires a client certificate gets one from --tls-client-cert/-key.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/integration/studio_lib.sh"
command -v openssl >/dev/null 2>&1 || skip_all "no openssl"
studio_init
unset SSL_CERT_FILE SSL_CERT_DIR CURL_CA_BUNDLE

cd "$TMP" || exit 1
cat >ext.cnf <<'EOC'
[srv]
subjectAltName = IP:127.0.0.1, DNS:localhost
extendedKeyUsage = serverAuth
[cli]
extendedKeyUsage = clientAuth
EOC
{
	openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.pem \
	    -days 2 -subj "/CN=gprofiler test CA" &&
	openssl req -newkey rsa:2048 -nodes -keyout srv.key -out srv.csr \
	    -subj "/CN=127.0.0.1" &&
	openssl x509 -req -in srv.csr -CA ca.pem -CAkey ca.key \
	    -CAcreateserial -out srv.pem -days 2 -extfile ext.cnf \
	    -extensions srv &&
	openssl req -newkey rsa:2048 -nodes -keyout cli.key -out cli.csr \
	    -subj "/CN=agent" &&
	openssl x509 -req -in cli.csr -CA ca.pem -CAkey ca.key \
	    -CAcreateserial -out cli.pem -days 2 -extfile ext.cnf \
	    -extensions cli
} >openssl.log 2>&1
ok $? "a private CA, a server and a client certificate"
chmod 600 cli.key

studio_server srv --tls "$TMP/srv.pem" "$TMP/srv.key"
case $SRV_URL in https://*) true ;; *) false ;; esac
ok $? "the fake backend serves HTTPS"

# run NAME [options]: one 1 s cycle uploading to the TLS server.
run() {
	_r=$1
	shift
	"$GP_BIN" --plugin-dir "$GP_PLUGIN_DIR" -d 1 $gp_cheap -u \
	    --token "$STUDIO_TOKEN" --service-name "$STUDIO_SVC" \
	    --server-host "$SRV_URL" --spool-dir "$TMP/spool-$_r" \
	    --state-dir "$TMP/state" -v "$@" >"$TMP/$_r.log" 2>&1
}

n0=$(srv_nprofiles)
run noca
[ "$(srv_nprofiles)" -eq "$n0" ]
ok $? "without the CA bundle the upload is refused (verification is on by default)"
grep -qi "certificate" "$TMP/noca.log"
ok $? "the log names the certificate problem"
[ "$(ls "$TMP/spool-noca" | wc -l)" -ge 1 ]
ok $? "the profile stays in the spool"

run ca --tls-ca-bundle "$TMP/ca.pem"
[ "$(srv_nprofiles)" -eq $((n0 + 1)) ]
ok $? "with --tls-ca-bundle the upload is accepted"

run nover --no-verify
[ "$(srv_nprofiles)" -eq $((n0 + 2)) ]
ok $? "with --no-verify the upload is accepted"

studio_server mtls --tls "$TMP/srv.pem" "$TMP/srv.key" --client-ca "$TMP/ca.pem"
m0=$(SRV_CTL=$SRV_URL srv_py '
ctx = ssl.create_default_context(cafile=sys.argv[1])
ctx.load_cert_chain(sys.argv[2], sys.argv[3])
with urllib.request.urlopen(BASE + "/_fake/profiles", context=ctx) as f:
    print(len(json.load(f)))' "$TMP/ca.pem" "$TMP/cli.pem" "$TMP/cli.key")
run nocert --tls-ca-bundle "$TMP/ca.pem"
run cert --tls-ca-bundle "$TMP/ca.pem" --tls-client-cert "$TMP/cli.pem" \
    --tls-client-key "$TMP/cli.key"
m1=$(SRV_CTL=$SRV_URL srv_py '
ctx = ssl.create_default_context(cafile=sys.argv[1])
ctx.load_cert_chain(sys.argv[2], sys.argv[3])
with urllib.request.urlopen(BASE + "/_fake/profiles", context=ctx) as f:
    print(len(json.load(f)))' "$TMP/ca.pem" "$TMP/cli.pem" "$TMP/cli.key")
[ "$m0" = 0 ] && [ "$m1" = 1 ] && [ "$(ls "$TMP/spool-nocert" | wc -l)" -ge 1 ] &&
    [ -z "$(ls "$TMP/spool-cert")" ]
ok $? "mTLS: refused without a client certificate, accepted with one"

done_testing

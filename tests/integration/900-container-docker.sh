#!/bin/sh
# Container names from a real Docker Engine: a busy process in a container
# built from a local rootfs (docker import) is profiled with the
# container's name in its stacks' container frame, in the header's
# "containers" and in the pprof "container" label; with
# --disable-container-names all of it is gone.
. "$top_srcdir/tests/tap.sh"
CT_BIN=ct_docker
. "$top_srcdir/tests/integration/container_lib.sh"
[ "$(id -u)" -eq 0 ] || skip_all "needs root"
tap_tmpdir
ct_runtime docker
ct_rootfs
name=gp-ct-docker-$$
cleanup() { docker rm -f "$name" >/dev/null 2>&1; }
trap cleanup EXIT

docker import "$TMP/rootfs.tar" "$CT_IMG" >/dev/null
ok $? "image imported from a local rootfs"
docker run -d --network none --name "$name" "$CT_IMG" "/$CT_BIN" >/dev/null
ok $? "container $name started"

ct_profile "$TMP/on" 5 --output-format col,pprof
rc=$?
ok $rc "one cycle"
[ $rc -eq 0 ] || diag "$(tail -5 "$TMP/on/stdout" "$TMP/on/gprofiler.log")"
ct_check "$TMP/on" "$name" >"$TMP/on.check" 2>&1
ok $? "the container's stacks and the header carry $name"
diag "$(cat "$TMP/on.check")"
pb=$(ls "$TMP"/on/*.pb.gz 2>/dev/null | head -1)
if [ -n "$pb" ]; then
	gunzip -c "$pb" | protoc --decode_raw >"$TMP/pprof.txt" 2>/dev/null
	grep -q "\"$name\"" "$TMP/pprof.txt"
	ok $? "pprof: the name is in the string table"
fi

ct_profile "$TMP/off" 5 --disable-container-names
ok $? "one cycle with --disable-container-names"
ct_check "$TMP/off" "" >"$TMP/off.check" 2>&1
ok $? "disabled: empty container frames and no header entry"
diag "$(cat "$TMP/off.check")"
! grep -q "$name" "$TMP"/off/*.col
ok $? "disabled: the name appears nowhere"
done_testing

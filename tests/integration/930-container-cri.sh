#!/bin/sh
# Kubernetes names through CRI: a pod sandbox and a container created as a
# kubelet does (io.kubernetes.* labels, restartCount annotation) through
# containerd's CRI, from a locally imported image (also the pause image).
# The busy container's stacks and the header carry
# k8s_<container>_<pod>_<namespace>_<pod uid>_<restartCount>, and pprof
# gets pod and namespace labels; the pause process gets no name.
. "$top_srcdir/tests/tap.sh"
CT_BIN=ct_k8s
. "$top_srcdir/tests/integration/container_lib.sh"
[ "$(id -u)" -eq 0 ] || skip_all "needs root"
command -v curl >/dev/null || skip_all "curl missing (the CRI test client)"
tap_tmpdir
ct_runtime containerd
SOCK=/run/containerd/containerd.sock
CRI="$PYTHON3 $top_srcdir/tests/integration/cri_client.py $SOCK"
ct_rootfs
sid=
cleanup() { [ -n "$sid" ] && $CRI rm "$sid" >/dev/null 2>&1; }
trap cleanup EXIT

ctr -n k8s.io images import "$(ct_oci_tar)" >/dev/null
ok $? "OCI image built from a local rootfs and imported into k8s.io"
pause=$($CRI sandbox-image)
ok $? "CRI answers; its pause image is $pause"
if [ "$pause" != "$CT_IMG" ] &&
    ! ctr -n k8s.io images ls -q | grep -qx "$pause"; then
	ctr -n k8s.io images tag "$CT_IMG" "$pause" >/dev/null
	ok $? "our image stands in for $pause (nothing can be pulled)"
fi

pod=gp-web-$$
ns=gp-test
uid=$(cat /proc/sys/kernel/random/uuid)
ids=$($CRI run "$pod" "$ns" "$uid" web "$CT_IMG" "/$CT_BIN" 2 2>"$TMP/cri.err")
rc=$?
ok $rc "pod sandbox and container started through CRI"
[ $rc -eq 0 ] || diag "$(cat "$TMP/cri.err")"
sid=${ids% *}
want="k8s_web_${pod}_${ns}_${uid}_2"

ct_profile "$TMP/on" 5 --output-format col,pprof
rc=$?
ok $rc "one cycle"
[ $rc -eq 0 ] || diag "$(tail -5 "$TMP/on/stdout" "$TMP/on/gprofiler.log")"
ct_check "$TMP/on" "$want" >"$TMP/on.check" 2>&1
ok $? "the container's stacks and the header carry $want"
diag "$(cat "$TMP/on.check")"
pb=$(ls "$TMP"/on/*.pb.gz 2>/dev/null | head -1)
gunzip -c "$pb" | protoc --decode_raw >"$TMP/pprof.txt" 2>/dev/null
grep -q "\"$pod\"" "$TMP/pprof.txt" && grep -q '"pod"' "$TMP/pprof.txt" &&
    grep -q '"namespace"' "$TMP/pprof.txt" && grep -q "\"$ns\"" "$TMP/pprof.txt"
ok $? "pprof: pod and namespace labels"
done_testing

#!/bin/sh
# Container names from podman through its Docker-compatible API socket: a
# busy process in a podman container (podman import of a local rootfs) is
# profiled with the container's name in its frames and in the header.
. "$top_srcdir/tests/tap.sh"
CT_BIN=ct_podman
. "$top_srcdir/tests/integration/container_lib.sh"
[ "$(id -u)" -eq 0 ] || skip_all "needs root"
tap_tmpdir
ct_runtime podman
ct_rootfs
name=gp-ct-podman-$$
cleanup() { podman rm -f "$name" >/dev/null 2>&1; }
trap cleanup EXIT

podman import "$TMP/rootfs.tar" "$CT_IMG" >/dev/null
ok $? "image imported from a local rootfs"
# Explicit limits: podman's defaults exceed what an unprivileged sandbox's
# hard limits allow (runc: "error setting rlimit").
podman run -d --network none --ulimit nofile=1024:1024 \
    --ulimit nproc=1024:1024 --name "$name" "$CT_IMG" "/$CT_BIN" >/dev/null
ok $? "container $name started"
pid=$(podman inspect -f '{{.State.Pid}}' "$name")
diag "cgroup: $(grep '^0::' /proc/"$pid"/cgroup)"

ct_profile "$TMP/on" 5
rc=$?
ok $rc "one cycle"
[ $rc -eq 0 ] || diag "$(tail -5 "$TMP/on/stdout" "$TMP/on/gprofiler.log")"
ct_check "$TMP/on" "$name" >"$TMP/on.check" 2>&1
ok $? "the container's stacks and the header carry $name"
diag "$(cat "$TMP/on.check")"
done_testing

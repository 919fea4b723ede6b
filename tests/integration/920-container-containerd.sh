#!/bin/sh
# Container names from containerd's own API, for containers not created
# through CRI: `ctr run` of a local rootfs puts the process at cgroup
# /<namespace>/<id>; its stacks carry the containerd id as the name.
. "$top_srcdir/tests/tap.sh"
CT_BIN=ct_ctr
. "$top_srcdir/tests/integration/container_lib.sh"
[ "$(id -u)" -eq 0 ] || skip_all "needs root"
tap_tmpdir
ct_runtime containerd
ct_rootfs
name=gp-ct-ctr-$$
cleanup() {
	ctr -n default task kill -s KILL "$name" >/dev/null 2>&1
	i=0
	while [ $i -lt 50 ] && ! ctr -n default task delete "$name" \
	    >/dev/null 2>&1; do
		sleep 0.1
		i=$((i + 1))
	done
	ctr -n default container delete "$name" >/dev/null 2>&1
}
trap cleanup EXIT

ctr -n default run -d --rootfs "$TMP/rootfs" "$name" "/$CT_BIN" >/dev/null
ok $? "ctr run $name from a local rootfs"
pid=$(ctr -n default task ls | awk -v n="$name" '$1 == n {print $2}')
diag "cgroup: $(grep '^0::' /proc/"$pid"/cgroup)"

ct_profile "$TMP/on" 5
rc=$?
ok $rc "one cycle"
[ $rc -eq 0 ] || diag "$(tail -5 "$TMP/on/stdout" "$TMP/on/gprofiler.log")"
ct_check "$TMP/on" "$name" >"$TMP/on.check" 2>&1
ok $? "the container's stacks and the header carry $name"
diag "$(cat "$TMP/on.check")"
done_testing

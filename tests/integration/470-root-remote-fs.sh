#!/bin/sh
# A host whose root file system is remote: a diskless node's NFS root, a
# VM's 9p root.  The agent refuses to walk a network file system (a lookup
# there can hang it), but /proc is procfs, answered by the kernel: every
# process's maps and executables must stay readable, or such a host gets
# profiles with no names at all.  A FUSE mirror of "/" (bindfs) stands in
# for NFS: in a private mount namespace the agent is chrooted into it,
# with the host's /proc, /sys and /dev mounted inside, so its "/" is a
# FUSE file system as an NFS root would be.  It must name the frames of a
# busy program of the host and say nothing about refused files under
# /proc.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/workloads/perf_lib.sh"
perf_require
[ -x "$GP_BIN" ] || skip_all "daemon not built"
command -v bindfs >/dev/null || skip_all "no bindfs (apt-get install bindfs)"
command -v unshare >/dev/null || skip_all "unshare(1) missing"
[ -c /dev/fuse ] || skip_all "no /dev/fuse"
tap_tmpdir
chmod 0755 "$TMP"
cleanup() {
	[ -n "${busy:-}" ] && kill -KILL "$busy" 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT
mkdir "$TMP/root" "$TMP/src" "$TMP/out"

"$WL/perf_busy" -t 30 >/dev/null 2>&1 &
busy=$!

# Inside the new root: which file system "/" is, then the agent.
cat >"$TMP/inroot.sh" <<'EOF2'
out=$1; shift
awk '$5 == "/" { for (i = 7; $i != "-"; i++); t = $(i + 1) } END { print t }' \
    /proc/self/mountinfo >"$out/root.txt"
exec "$@"
EOF2
# The mirror's source is "/" alone (a bind without its submounts), so the
# mirror does not contain itself; what the agent needs from the host's
# other mounts is mounted into it.
# shellcheck disable=SC2016
unshare -m --propagation private sh -c '
	r=$1 src=$2; shift 2
	mount --bind / "$src" || exit 97
	bindfs -o dev,suid "$src" "$r" || exit 98
	for d in proc sys dev; do
		mount --rbind "/$d" "$r/$d" || exit 99
	done
	for d in /tmp "$(dirname "$GP_BIN")" "$GP_PLUGIN_DIR"; do
		m=$(findmnt -n -o TARGET -T "$d")
		[ "$m" = / ] || mount --rbind "$m" "$r$m"
	done
	exec chroot "$r" "$@"' sh "$TMP/root" "$TMP/src" \
    /bin/sh "$TMP/inroot.sh" "$TMP/out" \
    "$GP_BIN" --plugin-dir "$GP_PLUGIN_DIR" -o "$TMP/out" -d 5 \
    --no-flamegraph --python-mode disabled --java-mode disabled \
    --nodejs-mode disabled -v >"$TMP/agent.log" 2>&1
rc=$?
case $rc in
97 | 98 | 99) sed 's/^/# /' "$TMP/agent.log"
	skip_all "cannot build a FUSE root here (step $rc)" ;;
esac
ok $rc "the agent ran one cycle with a FUSE file system as its root"
grep -q "fuse" "$TMP/out/root.txt" 2>/dev/null
ok $? "its root was FUSE ($(cat "$TMP/out/root.txt" 2>/dev/null))"

col=$(ls "$TMP/out"/profile_*.col 2>/dev/null | head -1)
[ -n "$col" ]
ok $? "it wrote a profile"
n=$(grep -c ";perf_busy;.*main;.*busy_round;hot_fifty" "$col" 2>/dev/null)
[ "${n:-0}" -gt 0 ]
ok $? "the host's busy program has named frames ($n stacks)"
n=$(grep -c "/proc/.*not local\|/proc/.*refus" "$TMP/agent.log")
[ "$n" -eq 0 ]
ok $? "no line refuses a file under /proc ($n)"
[ "$rc" -eq 0 ] || tail -20 "$TMP/agent.log" | sed 's/^/# /'
grep -i "not local\|refus" "$TMP/agent.log" | head -5 | sed 's/^/# /'
done_testing

# A FUSE filesystem whose reads never answer (tests/workloads/fuse_stall.c),
# for the hostile-input tests of what the agent reads from other processes.
# Source after tests/tap.sh, inside a tap_tmpdir.
#
#   fuse_stall_start DIR [other|user-other]  build it and mount it on
#                          DIR/mnt: the file DIR/mnt/stall (any name there
#                          is a file, a name "hang..." never looked up);
#                          FUSE_MNT the mount point, FUSE_PID the server.
#                          Served by nobody (fusermount3), whose mount
#                          only nobody can enter; with "other", a mount
#                          every user may enter (allow_other), as root's
#                          own (an sshfs whose server went away) or a
#                          user's where /etc/fuse.conf has user_allow_other
#                          are: served by root, its files nobody's; with
#                          "user-other", a user's mount every user may
#                          enter, as where /etc/fuse.conf has
#                          user_allow_other: mounted for nobody (its
#                          user_id, the owner of its control directory)
#                          without fusermount3 and that file
#   fuse_stall_stop        kill the server (a reader waiting on it is let
#                          go) and unmount; safe to call twice
#   fixture_stall_plugin DIR  a plugin directory holding the fixture that
#                          puts the agent's loop in such a read
#                          (tests/fixtures/fixture_plugin.c, FIXTURE_STALL)
#
# Skips the test when FUSE cannot be mounted (no fuse3, no libfuse3-dev, no
# /dev/fuse).  /dev/fuse is made world-usable (Debian's default, 0666) for
# the test if it is not, and put back after.

fuse_stall_start() {
	_fz=$1
	command -v fusermount3 >/dev/null 2>&1 ||
	    skip_all "no fusermount3 (apt-get install fuse3)"
	pkg-config --exists fuse3 2>/dev/null ||
	    skip_all "no libfuse3-dev"
	[ -c /dev/fuse ] || skip_all "no /dev/fuse"
	mkdir -p "$_fz/mnt"
	cc -O1 -o "$_fz/fuse_stall" "$top_srcdir/tests/workloads/fuse_stall.c" \
	    $(pkg-config --cflags --libs fuse3) 2>"$_fz/cc.err" ||
	    skip_all "cannot build the FUSE server: $(head -1 "$_fz/cc.err")"
	FUSE_DEV_MODE=$(stat -c %a /dev/fuse)
	[ "$FUSE_DEV_MODE" = 666 ] || chmod 0666 /dev/fuse
	chmod 0755 "$_fz"
	FUSE_MNT=$_fz/mnt
	if [ "${2:-}" = other ]; then
		FUSE_STALL_UID=65534 "$_fz/fuse_stall" "$_fz/mnt" -f \
		    -o allow_other >"$_fz/server.log" 2>&1 &
	elif [ "${2:-}" = user-other ]; then
		# libfuse mounts with user_id = its real uid; the effective
		# root lets it mount(2) itself, as fusermount3 would for
		# nobody with user_allow_other.
		setpriv --ruid=65534 --rgid=65534 --clear-groups \
		    "$_fz/fuse_stall" "$_fz/mnt" -f -o allow_other \
		    >"$_fz/server.log" 2>&1 &
	else
		chown 65534:65534 "$_fz/mnt"
		setpriv --reuid=65534 --regid=65534 --clear-groups \
		    "$_fz/fuse_stall" "$_fz/mnt" -f >"$_fz/server.log" 2>&1 &
	fi
	FUSE_PID=$!
	_i=0
	while ! awk -v m="$FUSE_MNT" '$5 == m { f = 1 } END { exit !f }' \
	    /proc/self/mountinfo && [ $_i -lt 50 ]; do
		sleep 0.1; _i=$((_i + 1))
	done
	awk -v m="$FUSE_MNT" '$5 == m { f = 1 } END { exit !f }' \
	    /proc/self/mountinfo ||
	    skip_all "cannot mount FUSE: $(head -1 "$_fz/server.log")"
}

fixture_stall_plugin() {
	mkdir -p "$1"
	cp "$top_builddir/tests/fixtures/.libs/fixture_stall.so" "$1/"
	printf 'name = fixture_stall\nkind = process\nmodes = cpu\nabi = 1\noptions = fixture_stall-level\n' \
	    >"$1/fixture_stall.plugin"
	chmod 0644 "$1"/*
}

fuse_stall_stop() {
	[ -n "${FUSE_PID:-}" ] && kill -KILL "$FUSE_PID" 2>/dev/null
	[ -n "${FUSE_MNT:-}" ] && umount -l "$FUSE_MNT" 2>/dev/null
	[ -n "${FUSE_DEV_MODE:-}" ] && chmod "$FUSE_DEV_MODE" /dev/fuse
	FUSE_PID= FUSE_MNT= FUSE_DEV_MODE=
}

# For a hostile-input test (tests/attack_lib.sh) around the server:
#   fuse_attack_begin      $TMP opened to nobody, an EXIT trap
#                          (fuse_attack_end), the server started and
#                          $TMP/v made nobody's, for the victims
#   fuse_attack_end        kill FUSE_VICTIMS (the test's pids, cleared
#                          once they are reaped) and the agent, stop the
#                          server, remove $TMP
fuse_attack_begin() {
	chmod 0711 "$TMP"
	trap fuse_attack_end EXIT
	fuse_stall_start "$TMP/fz"
	mkdir "$TMP/v" && chown 65534:65534 "$TMP/v"
}

fuse_attack_end() {
	# shellcheck disable=SC2086
	[ -n "${FUSE_VICTIMS:-}" ] && kill -KILL $FUSE_VICTIMS 2>/dev/null
	# The server's death lets a reader stuck on its page go.
	fuse_stall_stop
	[ -n "${AGENT_PID:-}" ] && kill -KILL "$AGENT_PID" 2>/dev/null
	rm -rf "$TMP"
}

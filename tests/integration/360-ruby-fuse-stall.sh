#!/bin/sh
# A local user (nobody) serves a FUSE file whose reads never answer, maps
# a page of it into a Ruby process and points the running method's label
# at that page (tests/workloads/ruby_fuse_label.rb).  The Ruby reader
# follows the label: a process_vm_readv there leaves the agent in an
# uninterruptible sleep until the FUSE server gives up, deaf to SIGTERM
# and with no cycle.  The agent must refuse the read (a file on FUSE), say
# so once naming the process and the filesystem, and keep its cycles, CPU,
# memory and SIGTERM (tests/attack_lib.sh).  A second victim points the
# label at an anonymous page first and maps the FUSE file over it 4 s
# later (MAP_FIXED): the maps the agent read before show an anonymous page
# there, so the page's residency decides (a page mapped since is not
# resident: the maps are read again before such a read).
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/attack_lib.sh"
. "$top_srcdir/tests/fuse_lib.sh"
[ "$(id -u)" -eq 0 ] || skip_all "needs root"
[ -x "$GP_BIN" ] || skip_all "no daemon"
command -v ruby >/dev/null 2>&1 || skip_all "no ruby (apt-get install ruby)"
ruby -e 'require "fiddle"' 2>/dev/null || skip_all "no Fiddle in this ruby"
ruby -e 'exit(RUBY_VERSION < "3.2" ? 0 : 1)' ||
    skip_all "the workload knows RString of Ruby <= 3.1 only"
tap_tmpdir
fuse_attack_begin
ok 0 "nobody mounted a FUSE filesystem whose reads never answer"

D=3
attack_start "$TMP/out" $D
i=0
while ! grep -q "sampling Ruby" "$TMP/out/log" 2>/dev/null &&
    [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
grep -q "sampling Ruby" "$TMP/out/log"
ok $? "the agent's Ruby plugin started"

for v in early late; do
	args=
	[ $v = late ] && args="late 4"
	# shellcheck disable=SC2086
	setpriv --reuid=65534 --regid=65534 --clear-groups ruby \
	    "$top_srcdir/tests/workloads/ruby_fuse_label.rb" "$FUSE_MNT/stall" \
	    "$TMP/v/$v" 12 $args >"$TMP/$v.log" 2>&1 &
	eval "rb_$v=\$!"
done
FUSE_VICTIMS="$rb_early $rb_late"
for v in early late; do
	i=0
	while [ ! -s "$TMP/v/$v" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
	[ -s "$TMP/v/$v" ]
	ok $? "the $v victim put a FUSE page behind its frame's label"
	sed 's/^/# /' "$TMP/$v.log"
done
early=$(cat "$TMP/v/early" 2>/dev/null)
late=$(cat "$TMP/v/late" 2>/dev/null)
wait $rb_early $rb_late
FUSE_VICTIMS=

attack_checks "$TMP/out" $D
grep -i "fuse\|refused" "$TMP/out/log" | head -8 | sed "s/^/# /"
for v in early late; do
	eval "page=\$$v pid=\$rb_$v"
	grep -q "pid $pid[ :].*0x$page.* on fuse.fuse_stall" "$TMP/out/log"
	ok $? "the log says the read of the $v victim's FUSE page was refused, and why"
	n=$(grep -c "0x$page.* on fuse" "$TMP/out/log")
	[ "$n" -eq 1 ]
	ok $? "said once ($n lines)"
done
done_testing

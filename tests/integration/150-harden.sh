#!/bin/sh
# A local user against the root daemon (issue 12), end to end: a token in
# ps, plugins under a directory someone else can write, a manifest for
# another ABI, a world-writable output directory, a planted --log-file
# symlink, a config file that is a FIFO (start-up and SIGHUP), CR/LF in a
# header value.  Each case failed before its fix.
. "$top_srcdir/tests/tap.sh"
[ "$(id -u)" -eq 0 ] || skip_all "needs root"
tap_tmpdir
light="--perf-mode disabled --no-python --no-java"
gp() { "$GP_BIN" --plugin-dir "$GP_PLUGIN_DIR" $light "$@"; }
gp_bg() { "$GP_BIN" --plugin-dir "$GP_PLUGIN_DIR" $light "$@" & }
wait_for() {
	i=0
	while [ $i -lt 150 ]; do "$@" && return 0; sleep 0.1; i=$((i + 1)); done
	return 1
}
has_col() { ls "$1"/profile_*.col >/dev/null 2>&1; }
gone() { ! kill -0 "$1" 2>/dev/null; }
# install_plugin DIR NAME [ABI]: a fixture with its manifest, root 0644.
install_plugin() {
	mkdir -p "$1"
	cp "$top_builddir/tests/fixtures/.libs/$2.so" "$1/$2.so"
	printf 'name = %s\nkind = process\nmodes = cpu\nabi = %s\noptions = %s-level\n' \
	    "$2" "${3:-1}" "$2" >"$1/$2.plugin"
	chmod 0644 "$1/$2.so" "$1/$2.plugin"
}

# --token is hidden from /proc/PID/cmdline once parsed.
gp_bg -c -d 1 -o "$TMP/argv" --token sekrit-XYZ-123 >"$TMP/argv.log" 2>&1
pid=$!
wait_for has_col "$TMP/argv"; ok $? "a daemon given --token runs"
tr '\0' ' ' <"/proc/$pid/cmdline" >"$TMP/cmdline"
diag "cmdline: $(cat "$TMP/cmdline")"
grep -q "sekrit" "$TMP/cmdline"; ok $(( ! $? )) "the token is not in /proc/PID/cmdline"
grep -q -- "--token" "$TMP/cmdline"; ok $? "(the option name still is)"
tr '\0' '\n' <"/proc/$pid/environ" | grep -q sekrit; ok $(( ! $? )) "nor in its environment"
kill -TERM $pid; wait $pid

# Plugins: a root-owned 0755 directory under one another user can write.
mkdir -p "$TMP/userdir"; chmod 0777 "$TMP/userdir"
install_plugin "$TMP/userdir/plugins" fixture; chmod 0755 "$TMP/userdir/plugins"
gp --plugin-dir "$TMP/userdir/plugins" -o "$TMP/out" --fixture-level 2 -n >"$TMP/anc.log" 2>&1
grep -q "refusing a plugin path.*$TMP/userdir is writable by everyone" "$TMP/anc.log"; ok $? "a plugin directory under a world-writable directory is refused"
grep -q 'unknown option "fixture-level"' "$TMP/anc.log"; ok $? "and the plugin is not loaded"
diag "$(head -1 "$TMP/anc.log")"
chmod 0755 "$TMP/userdir"
gp --plugin-dir "$TMP/userdir/plugins" -o "$TMP/out" --fixture-level 2 -n >"$TMP/anc2.log" 2>&1
ok $? "the same directory loads once its parents are root's alone"
# A symlink to a plugin: the file itself must be installed.
install_plugin "$TMP/lnk" fixture; mv "$TMP/lnk/fixture.so" "$TMP/fixture-real.so"
ln -s "$TMP/fixture-real.so" "$TMP/lnk/fixture.so"
gp --plugin-dir "$TMP/lnk" -o "$TMP/out" -n >"$TMP/lnk.log" 2>&1
grep -q "a symlink: install the file itself" "$TMP/lnk.log"; ok $? "a plugin that is a symlink is refused"

# A manifest for another ABI: the library is never mapped (its
# constructor would run as root before any check).
install_plugin "$TMP/abi2" fixture_ctor 2
FIXTURE_CTOR_MARK="$TMP/ctor-ran" gp --plugin-dir "$TMP/abi2" -o "$TMP/out" -n >"$TMP/abi2.log" 2>&1
[ ! -e "$TMP/ctor-ran" ]; ok $? "a plugin whose manifest says abi = 2 is not dlopen()ed"
grep -q "plugin built for ABI 2, this gprofiler has ABI 1" "$TMP/abi2.log"; ok $? "and the log says why"
install_plugin "$TMP/abi1" fixture_ctor 1
FIXTURE_CTOR_MARK="$TMP/ctor-ran" gp --plugin-dir "$TMP/abi2" --plugin-dir "$TMP/abi1" -o "$TMP/out" -n >"$TMP/abi1.log" 2>&1
[ -e "$TMP/ctor-ran" ]; ok $? "(with abi = 1 the same library is loaded: the mark works)"

# A world-writable output directory is refused at start-up.
mkdir -p "$TMP/ww"; chmod 1777 "$TMP/ww"
gp -o "$TMP/ww" -d 1 >"$TMP/ww.log" 2>&1
st=$?
ok $(( st == 1 ? 0 : 1 )) "a 1777 output directory: exit 1"
grep -q "output directory $TMP/ww refused.*writable by everyone" "$TMP/ww.log"; ok $? "with the reason and the fix"
ls "$TMP/ww" | grep -q . ; ok $(( ! $? )) "nothing written there"
# Profiles are the owner's alone by default.
gp -o "$TMP/modes" -d 1 >/dev/null 2>&1
[ "$(stat -c %a "$TMP/modes")" = 700 ] && [ "$(stat -c %a "$TMP/modes"/profile_*.col)" = 600 ]
ok $? "output directory 0700, profiles 0600"
gp -o "$TMP/modes-g" --output-group-readable -d 1 >/dev/null 2>&1
[ "$(stat -c %a "$TMP/modes-g")" = 750 ] && [ "$(stat -c %a "$TMP/modes-g"/profile_*.col)" = 640 ]
ok $? "--output-group-readable: 0750 and 0640"

# A --log-file planted as a symlink to a root file.
printf 'root data\n' >"$TMP/victim"; chmod 0600 "$TMP/victim"
ln -s "$TMP/victim" "$TMP/planted.log"
gp -o "$TMP/out" -d 1 --log-file "$TMP/planted.log" >"$TMP/lf.log" 2>&1
ok $? "a planted --log-file symlink does not stop the agent"
[ "$(cat "$TMP/victim")" = "root data" ]; ok $? "and nothing is appended to its target"
grep -q "log file $TMP/planted.log: a symlink" "$TMP/lf.log"; ok $? "the refusal is logged"

# A config file that is a FIFO: start-up and SIGHUP do not hang.
mkfifo "$TMP/fifo.conf"
timeout 20 "$GP_BIN" --plugin-dir "$GP_PLUGIN_DIR" $light --config "$TMP/fifo.conf" -o "$TMP/out" -d 1 >"$TMP/fifo.log" 2>&1
st=$?
ok $(( st == 2 ? 0 : 1 )) "a FIFO as the config file: exit 2 at once (status $st)"
grep -q "not a regular file" "$TMP/fifo.log"; ok $? "saying it is not a regular file"
printf 'output_dir = %s\n' "$TMP/hup" >"$TMP/hup.conf"; chmod 0600 "$TMP/hup.conf"
gp_bg -c -d 1 --config "$TMP/hup.conf" >"$TMP/hup.log" 2>&1
pid=$!
wait_for has_col "$TMP/hup"; ok $? "started from a regular config file"
rm "$TMP/hup.conf"; mkfifo "$TMP/hup.conf"
kill -HUP $pid
wait_for grep -q "keeping the previous configuration" "$TMP/hup.log"; ok $? "SIGHUP with the config now a FIFO: refused, not hung"
n=$(ls "$TMP/hup" | grep -c '^profile_.*\.col$')
wait_for sh -c "[ \$(ls '$TMP/hup' | grep -c '^profile_.*\.col\$') -gt $n ]"; ok $? "cycles go on"
kill -TERM $pid
wait_for gone $pid; ok $? "and SIGTERM still stops it"
wait $pid 2>/dev/null

# CR/LF in header values.
gp -o "$TMP/out" -d 1 -u --token "$(printf 'abc\r\nX-Evil: 1')" --service-name svc \
    --server-host http://127.0.0.1:9 >"$TMP/crlf.log" 2>&1
st=$?
ok $(( st == 2 ? 0 : 1 )) "--token with CR/LF: usage error (status $st)"
grep -q "control character" "$TMP/crlf.log"; ok $? "naming the problem"
gp -o "$TMP/out" -d 1 -u --token abc --service-name "$(printf 'svc\r\nX-Evil: 1')" \
    --server-host http://127.0.0.1:9 >"$TMP/crlf2.log" 2>&1
st=$?
ok $(( st == 2 ? 0 : 1 )) "--service-name with CR/LF: usage error (status $st)"
done_testing

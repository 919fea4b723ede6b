#!/bin/sh
# The plugin loader against good and broken fixture plugins: ABI checks,
# manifests, permissions, mode selection, option ownership, check().
. "$top_srcdir/tests/tap.sh"
[ "$(id -u)" -eq 0 ] || skip_all "needs root (ownership checks)"
tap_tmpdir
fix="$top_builddir/tests/fixtures/.libs"
export GPROFILER_LOCK_NAME="gptest-loader-$$"

# install NAME [FILE] [KIND] [MODES]: a fixture and its manifest in $1's dir
install_plugin() {
	dir=$1 name=$2 file=${3:-$2} kind=${4:-process} modes=${5:-cpu}
	mkdir -p "$dir"
	cp "$fix/$file.so" "$dir/$name.so"
	printf 'name = %s\nkind = %s\nmodes = %s\nabi = 1\noptions = %s-level\n' \
	    "$name" "$kind" "$modes" "$name" >"$dir/$name.plugin"
	chmod 0644 "$dir/$name.so" "$dir/$name.plugin"
}

# Every run: the fixtures' directory plus this build's plugins, with the
# system profiler (perf) disabled so that only the fixtures matter.
gp() {
	dir=$1; shift
	"$GP_BIN" --plugin-dir "$dir" --plugin-dir "$GP_PLUGIN_DIR" \
	    --perf-mode disabled --log-file "$TMP/log" --pid-file "$TMP/pid" \
	    "$@" >"$TMP/stdout" 2>"$TMP/stderr"
}

d="$TMP/good"; install_plugin "$d" fixture
gp "$d" --help; cp "$TMP/stdout" "$TMP/help"
grep -q -- "--fixture-level" "$TMP/help"; ok $? "--help lists a plugin's options with its name"
grep -q "Plugin fixture" "$TMP/help"; ok $? "--help names the plugin"

for v in badmagic:"not a gprofiler plugin" newminor:"plugin ABI 1.99" \
    oldmajor:"plugin ABI 0." reserved:"reserved fields" \
    nostop:"init, start, snapshot and stop are required"; do
	name=fixture_${v%%:*} msg=${v#*:}
	d="$TMP/$name"; install_plugin "$d" "$name"
	gp "$d" -o "$TMP/out" -n
	grep -q "$msg" "$TMP/stderr"; ok $? "$name is rejected: $msg"
	grep -q "plugin $name skipped" "$TMP/stderr"; ok $? "$name is skipped, not fatal"
done

d="$TMP/wrongname"; install_plugin "$d" fixture_wrongname
gp "$d" -o "$TMP/out" -n
grep -q 'descriptor name "someone_else" does not match' "$TMP/stderr"; ok $? "a descriptor whose name differs from its file is rejected"

d="$TMP/initfail"; install_plugin "$d" fixture_initfail
gp "$d" -o "$TMP/out" -n
grep -q "init failed" "$TMP/stderr"; ok $? "an init failure is reported"

d="$TMP/unsafe"; install_plugin "$d" fixture; chmod 0666 "$d/fixture.so"
gp "$d" -o "$TMP/out" -n
grep -q "refusing a plugin path not owned by root or writable" "$TMP/stderr"; ok $? "a group/other-writable plugin is refused"
d="$TMP/unsafedir"; install_plugin "$d" fixture; chmod 0777 "$d"
gp "$d" -o "$TMP/out" -n
grep -q "refusing a plugin path" "$TMP/stderr"; ok $? "a world-writable plugin directory is refused"

d="$TMP/opts"; install_plugin "$d" fixture; install_plugin "$d" fixture_gpu fixture_gpu process gpu
gp "$d" -o "$TMP/out" --fixture-level 9 -n
ok $(( $? == 2 ? 0 : 1 )) "a plugin's check() failure is a usage error (exit 2)"
grep -q "fixture-level must be at most 5" "$TMP/stderr"; ok $? "with the plugin's message"
gp "$d" -o "$TMP/out" --fixture_gpu-level 2 -n
st=$?
ok $(( st == 2 ? 0 : 1 )) "an option of a plugin serving another mode exits 2"
grep -q "belongs to plugin fixture_gpu, which serves mode gpu" "$TMP/stderr"; ok $? "naming the plugin and its mode"
gp "$d" -o "$TMP/out" --rootless -n
ok $(( $? == 2 ? 0 : 1 )) "an incompatible core option exits 2"
grep -q -- "--rootless cannot be used with plugin fixture" "$TMP/stderr"; ok $? "naming the option and the plugin"
printf 'fixture-level = x\n' >"$TMP/bad.conf"; chmod 600 "$TMP/bad.conf"
gp "$d" --config "$TMP/bad.conf" -o "$TMP/out" -n
ok $(( $? == 2 ? 0 : 1 )) "a bad plugin value in the config file exits 2"
grep -q "bad.conf:1: invalid value \"x\" for --fixture-level" "$TMP/stderr"; ok $? "naming file:line"
printf '[fixture]\nlevel = 3\n' >"$TMP/good.conf"; chmod 600 "$TMP/good.conf"
gp "$d" --config "$TMP/good.conf" -o "$TMP/out" -n
ok $? "a [plugin] section sets the plugin's options"
GPROFILER_FIXTURE_LEVEL=7 gp "$d" -o "$TMP/out" -n
ok $(( $? == 2 ? 0 : 1 )) "GPROFILER_<NAME> reaches plugin options"
done_testing

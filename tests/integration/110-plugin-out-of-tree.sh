#!/bin/sh
# A third-party plugin built out of tree against the installed header and
# gprofiler-plugin.pc (docs/examples/loadavg), dropped into a plugin
# directory, loaded and run by the daemon.
. "$top_srcdir/tests/tap.sh"
[ "$(id -u)" -eq 0 ] || skip_all "needs root"
command -v pkg-config >/dev/null || skip_all "no pkg-config"
tap_tmpdir
inst="$TMP/inst"
make -s -C "$top_builddir" install-gprofilerincludeHEADERS \
    install-pkgconfigDATA install-dist_pkgdataDATA DESTDIR="$inst" >"$TMP/install.log" 2>&1
ok $? "make install puts the plugin header and gprofiler-plugin.pc in place"
pc=$(find "$inst" -name gprofiler-plugin.pc | head -1)
hdr=$(find "$inst" -path '*/gprofiler/plugin.h' | head -1)
map=$(find "$inst" -name gprofiler-plugin.map | head -1)
[ -n "$pc" ] && [ -n "$hdr" ] && [ -n "$map" ]; ok $? "installed: $pc"
export PKG_CONFIG_PATH="$(dirname "$pc")" PKG_CONFIG_SYSROOT_DIR="$inst"
# The sysroot applies to -I and -L only: point the version script into it.
export PKG_CONFIG="pkg-config --define-variable=plugin_map=$map"
mkdir -p "$TMP/src" "$TMP/plugins"
cp "$top_srcdir"/docs/examples/loadavg/* "$TMP/src/"
make -s -C "$TMP/src" >"$TMP/build.log" 2>&1
st=$?
ok $st "the example builds with only the installed SDK"
[ $st -eq 0 ] || sed 's/^/# /' "$TMP/build.log"
nm -D --defined-only "$TMP/src/loadavg.so" | awk '{print $3}' >"$TMP/syms"
[ "$(cat "$TMP/syms")" = "gprofiler_plugin" ]; ok $? "it exports exactly one symbol, gprofiler_plugin"
install -m 0644 "$TMP/src/loadavg.so" "$TMP/src/loadavg.plugin" "$TMP/plugins/"
chmod 0755 "$TMP/plugins"
"$GP_BIN" --plugin-dir "$TMP/plugins" --plugin-dir "$GP_PLUGIN_DIR" \
    --perf-mode disabled --no-python -o "$TMP/out" -d 1 >"$TMP/run.log" 2>&1
ok $? "the daemon runs a cycle with the plugin"
head -1 "$TMP/out/last_profile.col" | grep -q '"loadavg_1m"'; ok $? "its metadata is in the profile header"
done_testing

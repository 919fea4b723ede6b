#!/bin/sh
# The ABI kept honest: every plugin exports exactly its descriptor, the
# daemon exports nothing plugins could bind to, and a plugin built against
# the released 1.0 header loads.
. "$top_srcdir/tests/tap.sh"
tap_tmpdir
for so in "$GP_PLUGIN_DIR"/*.so; do
	syms=$(nm -D --defined-only "$so" | awk '{print $3}')
	[ "$syms" = "gprofiler_plugin" ]; ok $? "$(basename "$so") exports only gprofiler_plugin"
	readelf -d "$so" | grep -q 'NEEDED.*libgpcore'; ok $(( ! $? )) "$(basename "$so") links nothing of the daemon's"
done
n=$(nm -D --defined-only "$GP_BIN" | awk '$2 ~ /[TD]/ {print $3}' | grep -v '^_' | grep -c .)
[ "$n" -eq 0 ]; ok $? "the daemon exports no symbols for plugins to bind to ($n)"
[ "$(id -u)" -eq 0 ] || { done_testing; exit; }
d="$TMP/v10"; mkdir -p "$d"
cp "$top_builddir/tests/fixtures/.libs/fixture_v1_0.so" "$d/"
printf 'name = fixture_v1_0\nkind = process\nmodes = cpu\nabi = 1\noptions = fixture_v1_0-level\n' >"$d/fixture_v1_0.plugin"
chmod 0644 "$d"/*; chmod 0755 "$d"
"$GP_BIN" --plugin-dir "$d" --plugin-dir "$GP_PLUGIN_DIR" --perf-mode disabled \
    -o "$TMP/out" --fixture_v1_0-level 2 -n >"$TMP/log" 2>&1
ok $? "a plugin built against the 1.0 header loads in this daemon"
done_testing

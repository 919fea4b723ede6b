#!/bin/sh
# The manual pages: lint-clean, and listing exactly the options the program
# and the bundled plugins parse (the lists are generated from their tables;
# this catches a page that lost its generated part or a template that names
# an option the program no longer has).
. "$top_srcdir/tests/tap.sh"
tap_tmpdir
man=$top_builddir/docs/man
for p in gprofiler.8 gprofiler.conf.5 gprofiler-plugin.7; do
	[ -s "$man/$p" ] || { ok 1 "$p was built"; continue; }
	ok 0 "$p was built"
	if command -v mandoc >/dev/null 2>&1; then
		mandoc -Tlint -Wwarning "$man/$p" >"$TMP/lint" 2>&1
		ok $? "$p: mandoc -Tlint clean"
		[ -s "$TMP/lint" ] && sed 's/^/# /' "$TMP/lint"
	else
		skip "$p: mandoc -Tlint clean" "mandoc is not installed"
	fi
	LC_ALL=C.UTF-8 MANWIDTH=80 man -l "$man/$p" >"$TMP/$p.txt" 2>"$TMP/err"
	ok $? "$p renders with man"
	grep -q '@[a-z]*dir@' "$man/$p"
	ok $((!$?)) "$p: every @dir@ was substituted"
done

# Every option --help prints (core and plugins) is documented.
GPROFILER_PLUGIN_DIR=$GP_PLUGIN_DIR "$GP_BIN" --help >"$TMP/help" 2>&1
{ sed -n 's/^ *\(-[a-zA-Z], \)\{0,1\}--\([a-z0-9-]*\).*/\2/p' "$TMP/help"
  grep -o -- '--[a-z-]*' "$TMP/help" | sed -n '1,/^--check-config$/s/^--//p'; } |
    sort -u >"$TMP/help.opts"
[ "$(wc -l <"$TMP/help.opts")" -gt 40 ]
ok $? "--help lists the options ($(wc -l <"$TMP/help.opts"))"
grep -q '^Plugin perf' "$TMP/help"
ok $? "--help lists the bundled plugins"
cat "$man/gprofiler.8" "$man/gprofiler.conf.5" |
    sed -n 's/.*Fl Fl \([a-z0-9-]*\).*/\1/p' | sort -u >"$TMP/man.opts"
missing=$(comm -23 "$TMP/help.opts" "$TMP/man.opts")
[ -z "$missing" ]
ok $? "every option of --help is in the pages"
[ -n "$missing" ] && diag "missing: $(echo $missing)"
# Options the pages name in their generated lists that the program lacks.
sed -n 's/^\.It .*Fl Fl \([a-z0-9-]*\).*/\1/p' "$man/gprofiler.8" |
    sort -u >"$TMP/man8.opts"
extra=$(comm -13 "$TMP/help.opts" "$TMP/man8.opts")
[ -z "$extra" ]
ok $? "gprofiler(8) lists no option the program lacks"
[ -n "$extra" ] && diag "extra: $(echo $extra)"
# The config page has a section per bundled plugin.
for pl in perf python java iaprof perfspect; do
	grep -q "^\.Ss Bq $pl\$" "$man/gprofiler.conf.5"
	ok $? "gprofiler.conf(5) has a [$pl] section"
done
done_testing

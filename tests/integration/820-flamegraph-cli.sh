#!/bin/sh
# `gprofiler flamegraph FILE.col [-o OUT.html]`: output names, stdout,
# errors and exit statuses.
. "$top_srcdir/tests/tap.sh"
tap_tmpdir
printf '# {"profiling_mode": "cpu"}\n;bash;main;work_[k] 3\n;bash;main 1' \
    >"$TMP/p.col"

"$GP_BIN" flamegraph "$TMP/p.col" 2>"$TMP/err"
ok $? "renders beside the input"
grep -q 'work_\[k\]' "$TMP/p.html" 2>/dev/null
ok $? "FILE.col -> FILE.html holds the frames"
head -c 15 "$TMP/p.html" | grep -q '<!DOCTYPE html>'
ok $? "an HTML page"

"$GP_BIN" flamegraph "$TMP/p.col" -o "$TMP/other.html" 2>/dev/null &&
    cmp -s "$TMP/p.html" "$TMP/other.html"
ok $? "-o names the output; same page"

"$GP_BIN" flamegraph -o - "$TMP/p.col" 2>/dev/null >"$TMP/stdout.html" &&
    cmp -s "$TMP/p.html" "$TMP/stdout.html"
ok $? "-o - writes to stdout"

ls "$TMP" | grep -q '\.tmp$'
[ $? -ne 0 ]
ok $? "no temporary files left"

"$GP_BIN" flamegraph "$TMP/missing.col" 2>"$TMP/err"
[ $? -eq 1 ] && grep -q "missing.col" "$TMP/err"
ok $? "missing input: exit 1 naming the file"

"$GP_BIN" flamegraph "$TMP/p.col" -o "$TMP/nodir/x.html" 2>"$TMP/err"
[ $? -eq 1 ] && grep -q "nodir/x.html" "$TMP/err"
ok $? "unwritable output: exit 1 naming the path"

"$GP_BIN" flamegraph >/dev/null 2>&1
[ $? -eq 2 ]
ok $? "no file: usage, exit 2"

done_testing

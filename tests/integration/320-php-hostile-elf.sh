#!/bin/sh
# The PHP plugin through the daemon against a hostile libphp8.2.so that an
# ordinary user (nobody) maps: 8000 symbols over a 64 MB .dynstr with no
# final NUL.  libelf's elf_strptr scanned the whole table at each name
# (symbols x table size: no cycle for tens of seconds, the agent's CPU
# spent, SIGTERM ignored); the bounded reader costs a read per name and
# gives up at its budget.  attack_checks: cycles on time, agent CPU, peak
# RSS, SIGTERM.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/attack_lib.sh"
. "$top_srcdir/tests/hostile_elf_lib.sh"
helf_setup
helf_write libphp8.2.so 8000 64
ok $? "a hostile libphp8.2.so of nobody's"
attack_start "$TMP/out" 3 --php-mode phpspy
helf_map libphp8.2.so php-fpm 30
ok $? "a process of nobody's maps it"
sleep 15
grep -q "$TMP/lib/libphp8.2.so" "$TMP/out/log"
ok $? "the plugin looked at it (the log names it)"
attack_checks "$TMP/out" 3
done_testing

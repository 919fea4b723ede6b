#!/bin/sh
# The Ruby plugin through the daemon against a hostile libruby.so.3.1 that an
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
helf_write libruby.so.3.1 8000 64
ok $? "a hostile libruby.so.3.1 of nobody's"
attack_start "$TMP/out" 3 
helf_map libruby.so.3.1 ruby 30
ok $? "a process of nobody's maps it"
sleep 15
grep -q "$TMP/lib/libruby.so.3.1" "$TMP/out/log"
ok $? "the plugin looked at it (the log names it)"
attack_checks "$TMP/out" 3
done_testing

#!/bin/sh
# A local user's site-packages of 120 *.egg-info whose installed-files.txt
# are symlinks to one 16 MiB list (tests/integration/pkgbomb_lib.sh): the
# package-version index reads the list once, keeps to its 16 MiB budget
# and says so in one line; the agent keeps its CPU, memory and cycles.
. "$top_srcdir/tests/integration/pkgbomb_lib.sh"
pkgbomb_run egg

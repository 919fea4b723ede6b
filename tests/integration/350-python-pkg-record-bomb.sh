#!/bin/sh
# The RECORD variant of 340-python-pkg-egg-bomb: 120 *.dist-info whose
# RECORD are symlinks to one 16 MiB list (tests/integration/
# pkgbomb_lib.sh): read once, the index within its budget, said once.
. "$top_srcdir/tests/integration/pkgbomb_lib.sh"
pkgbomb_run record

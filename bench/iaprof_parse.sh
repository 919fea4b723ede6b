#!/bin/sh
# Parse throughput of the iaprof stream parser (one core, >= 100 MB).
# Usage: bench/iaprof_parse.sh [BUILDDIR] [MB]; target >= 100 MB/s.
b=${1:-.}
exec taskset -c 0 "$b/bench/iaprof_parse" "${2:-128}"

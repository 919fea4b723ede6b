#!/bin/bash
# The perf plugin's longest loop callback and CPU under inputs a local user
# controls: a JIT process with a hostile 64 MiB perf map (about a million
# lines in random order, a few over-long ones), and processes spending
# their time in libLLVM (a 110 MB library to symbolize: clang compiling
# in a loop).  The test host driver (test_perf_host) times every callback
# it makes into the plugin; the design's budget is 5 ms.  A snapshot whose
# binaries' symbol tables are still loading returns at once and emits in a
# later work-timer turn ("short timer"): read "longest callback", not only
# the per-cycle snapshot lines.  Run as root from a build tree:
#
#	bench/perf_hostile.sh [BUILDDIR] [SECONDS] [CYCLES]	(. 5 3)
set -u
build=${1:-.}
secs=${2:-5}
cycles=${3:-3}
host=$build/tests/unit/test_perf_host
so=$build/plugins/perf/.libs/perf.so
jit=$build/tests/workloads/perf_jit
busy=$build/tests/workloads/perf_busy
tmp=$(mktemp -d /tmp/perfhostile.XXXXXX)
pids=""
trap 'kill $pids 2>/dev/null; rm -rf "$tmp"' EXIT
for x in "$host" "$so" "$jit" "$busy"; do
	[ -e "$x" ] || { echo "missing $x: build first (make check)"; exit 1; }
done

# run NAME PIDS: the plugin for CYCLES cycles of SECS, sampling only PIDS
# (the rest of a shared host would be measured too); its callback report.
run() {
	"$host" "$so" -d "$secs" -n "$cycles" -o profiling-frequency=99 \
	    -o pids="$2" >"$tmp/$1.out" 2>"$tmp/$1.err"
	echo "$1:"
	grep '^host:' "$tmp/$1.err" | sed 's/^host: /\t/'
	grep -E '^(WARN|ERR)' "$tmp/$1.err" | sort | uniq -c | head -5 |
	    sed 's/^/\t/'
}

echo "perf plugin, ${cycles} cycles of ${secs} s at 99 Hz, every CPU;" \
    "$(nproc) CPUs"

"$busy" -t $((secs * cycles + 5)) & b=$!; pids="$pids $b"
sleep 0.5
run baseline $b
kill $pids 2>/dev/null; wait 2>/dev/null; pids=""

# A JIT process whose own map is 64 MiB of plausible lines.
"$jit" -t $((secs * cycles + 30)) & j=$!; pids="$pids $j"
while [ ! -s /tmp/perf-$j.map ]; do sleep 0.05; done
python3 - "$j" <<'EOF'
import random, sys
pid = sys.argv[1]
random.seed(1)
with open("/tmp/perf-%s.map" % pid, "a") as f:
    size, i = 0, 0
    while size < 64 << 20:
        if i % 100000 == 7:
            line = "%x 10 %s\n" % (0x10000000 + i * 64, "L" * 6000)
        else:
            line = "%x %x jit_method_%d_with_a_fairly_long_name(int, long)\n" % (
                random.randrange(1 << 40, 1 << 41), random.randrange(16, 4096), i)
        f.write(line)
        size += len(line)
        i += 1
EOF
ls -la /tmp/perf-$j.map | awk '{ printf "hostile perf map: %.1f MiB\n", $5 / 1048576 }'
run perfmap-64MiB $j
kill $pids 2>/dev/null; wait 2>/dev/null; pids=""
rm -f /tmp/perf-$j.map

# libLLVM: clang (libLLVM-14 in-process, its cc1 integrated) compiling a
# large file.
if ldd "$(command -v clang)" 2>/dev/null | grep -q libLLVM; then
	# One long compile: a single PID to sample.
	python3 -c '
for i in range(6000):
    print("int f%d(int x) { int s = 0; for (int i = 0; i < x; i++) "
          "s += i * %d ^ (s >> 3); return s; }" % (i, i))' >"$tmp/huge.c"
	clang -O2 -c "$tmp/huge.c" -o "$tmp/huge.o" & c=$!; pids="$pids $c"
	sleep 1
	run libLLVM $c
	kill $pids 2>/dev/null; wait 2>/dev/null; pids=""
else
	echo "libLLVM: clang is not linked to libLLVM here (apt install" \
	    "libllvm14 clang)"
fi

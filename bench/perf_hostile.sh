#!/bin/bash
# The perf plugin's longest loop callback and CPU under inputs a local user
# controls: a JIT process with a hostile 64 MiB perf map (about a million
# lines in random order, a few over-long ones), and processes spending
# their time in libLLVM (a 110 MB library to symbolize: clang compiling
# in a loop).  The test host driver (test_perf_host) times every callback
# it makes into the plugin; the design's budget is 5 ms.  Run as root from
# a build tree:
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

# run NAME: the plugin for CYCLES cycles of SECS; its callback report.
run() {
	"$host" "$so" -d "$secs" -n "$cycles" -o profiling-frequency=99 \
	    >"$tmp/$1.out" 2>"$tmp/$1.err"
	printf '%-22s %s\n' "$1" "$(grep '^host:' "$tmp/$1.err" |
	    sed 's/^host: //')"
	grep -E '^(WARN|ERR)' "$tmp/$1.err" | sort | uniq -c | head -5 |
	    sed 's/^/\t/'
}

echo "perf plugin, ${cycles} cycles of ${secs} s at 99 Hz, every CPU;" \
    "$(nproc) CPUs"

"$busy" -t $((secs * cycles + 5)) & pids="$pids $!"
sleep 0.5
run baseline
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
run perfmap-64MiB
kill $pids 2>/dev/null; wait 2>/dev/null; pids=""
rm -f /tmp/perf-$j.map

# libLLVM: clang (linked to libLLVM-14) compiling in a loop on every CPU.
if ldd "$(command -v clang)" 2>/dev/null | grep -q libLLVM; then
	cat >"$tmp/big.c" <<'EOF'
#define F(n) int f##n(int x) { int s = 0; for (int i = 0; i < x; i++) s += i * n ^ (s >> 3); return s; }
#define G(n) F(n##0) F(n##1) F(n##2) F(n##3) F(n##4) F(n##5) F(n##6) F(n##7) F(n##8) F(n##9)
G(1) G(2) G(3) G(4) G(5) G(6) G(7) G(8) G(9)
EOF
	for c in $(seq "$(nproc)"); do
		( end=$((SECONDS + secs * cycles + 10))
		  while [ $SECONDS -lt $end ]; do
			clang -O2 -c "$tmp/big.c" -o "$tmp/big$c.o"
		  done ) & pids="$pids $!"
	done
	sleep 1
	run libLLVM
	kill $pids 2>/dev/null; wait 2>/dev/null; pids=""
else
	echo "libLLVM: clang is not linked to libLLVM here (apt install" \
	    "libllvm14 clang)"
fi

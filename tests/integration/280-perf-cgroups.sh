#!/bin/sh
# perf plugin, --perf-use-cgroups: two cgroup v2 leaves, A with a heavy busy
# process (2 threads) and B with a lighter one (1 thread), and a busy
# process outside both.  --perf-max-cgroups 1 samples only A's process,
# --perf-max-cgroups 2 A's and B's, and without the flag all of them are
# sampled.  A third leaf named as docker's systemd driver names a container
# (docker-<64 hex>.scope) holds a light process: with
# --perf-max-docker-containers 1 --perf-max-cgroups 1 the container comes
# first, busier A or not.  --perf-max-cgroups 0 (no docker containers either)
# disables perf, as gProfiler does.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/workloads/perf_lib.sh"
perf_require
[ -x "$GP_BIN" ] || skip_all "daemon not built"

# cgroup v2: the unified mount, or beside v1 on a hybrid host
CG=""
for d in /sys/fs/cgroup /sys/fs/cgroup/unified; do
	if [ "$(stat -f -c %T "$d" 2>/dev/null)" = cgroup2fs ]; then
		CG=$d
		break
	fi
done
[ -n "$CG" ] || skip_all "cgroup v2 is not mounted"
A=$CG/gptest-a-$$
B=$CG/gptest-b-$$
# a container id of this run: 64 hex digits
D=$CG/docker-$(printf '%064x' $$).scope
mkdir "$A" 2>/dev/null || skip_all "cannot create a cgroup under $CG"
mkdir "$B" "$D" || { rmdir "$A" "$B" "$D" 2>/dev/null;
    skip_all "cannot create a cgroup under $CG"; }

TMP=$(mktemp -d /tmp/gptest.XXXXXX) || exit 99
pids=""
cleanup() {
	# shellcheck disable=SC2086
	[ -z "$pids" ] || kill $pids 2>/dev/null
	wait 2>/dev/null
	for d in "$A" "$B" "$D"; do
		i=0
		while [ -d "$d" ] && ! rmdir "$d" 2>/dev/null && [ $i -lt 50 ]; do
			sleep 0.1
			i=$((i + 1))
		done
	done
	rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# One binary, three names, so each process is told apart by its comm.
for n in cgbusy_a cgbusy_b cgbusy_d cgbusy_out; do
	cp "$WL/perf_busy" "$TMP/$n" || exit 99
done
# Each process enters its cgroup before it execs the workload.
sh -c 'echo $$ >"$1/cgroup.procs" && exec "$2" -t 60 -j 2' sh "$A" \
    "$TMP/cgbusy_a" &
pids="$pids $!"
sh -c 'echo $$ >"$1/cgroup.procs" && exec "$2" -t 60 -j 1' sh "$B" \
    "$TMP/cgbusy_b" &
pids="$pids $!"
"$TMP/cgbusy_out" -t 60 -j 1 &
pids="$pids $!"
# the container's process: a third of a CPU at most
sh -c 'echo $$ >"$1/cgroup.procs" &&
    while :; do timeout 0.1 "$2" -t 1; sleep 0.2; done' sh "$D" \
    "$TMP/cgbusy_d" &
pids="$pids $!"
# A Python process outside the cgroups: gProfiler's -G limits perf, not
# its runtime profilers, so the python plugin still profiles it.
PY=""
if [ -e "$GP_PLUGIN_DIR/python.so" ] && [ -n "${PYTHON3:-}" ]; then
	cat >"$TMP/cg_py.py" <<'PYEOF'
import time
def cg_spin_outside():
    x = 0
    for i in range(200000):
        x += i
    return x
end = time.time() + 60
while time.time() < end:
    cg_spin_outside()
    time.sleep(0.01)
PYEOF
	"$PYTHON3" "$TMP/cg_py.py" &
	pids="$pids $!"
	PY=1
fi
sleep 2
grep -q . "$A/cgroup.procs" && grep -q . "$B/cgroup.procs" &&
    grep -q . "$D/cgroup.procs"
ok $? "the workloads are in $A, $B and $D"

# run NAME ARGS...: one 5 s cycle of the daemon; $TMP/NAME.comms gets the
# sampled process names, $TMP/NAME.err the log.
run() {
	name=$1
	shift
	dir=$TMP/$name.out
	mkdir -p "$dir"
	"$GP_BIN" --plugin-dir "$GP_PLUGIN_DIR" -o "$dir" -d 5 \
	    --no-flamegraph --profiling-frequency 49 "$@" \
	    >"$TMP/$name.err" 2>&1
	rc=$?
	col=$(ls "$dir"/profile_*.col 2>/dev/null | head -1)
	: >"$TMP/$name.comms"
	[ -n "$col" ] && tail -n +2 "$col" | cut -d';' -f3 | sort -u \
	    >"$TMP/$name.comms"
	diag "$name: exit $rc, sampled: $(grep cgbusy "$TMP/$name.comms" |
	    tr '\n' ' ')"
	return $rc
}
has() { grep -qx "$2" "$TMP/$1.comms"; }
# foreign NAME: the cgroups the run chose first (its debug line) that are
# not this test's, one per line.  The host is shared (a container test may
# run beside this one): a busier cgroup of someone else's takes a place,
# and the checks that count places are then skipped, saying why.
foreign() {
	sed -n 's/.*perf cgroups this cycle: [0-9]* of [0-9]* with processes ([^)]*): //p' \
	    "$TMP/$1.err" | head -1 | sed 's/ ([0-9]* ms[^)]*)\(, \)*/\n/g' |
	    grep . | grep -v -e "^/${A##*/}\$" -e "^/${B##*/}\$" -e "^/${D##*/}\$"
}
# places NAME WHAT CHECK...: run CHECK as a check of WHAT unless a foreign
# cgroup took a place in run NAME.
places() {
	name=$1 what=$2
	shift 2
	f=$(foreign "$name" | tr '\n' ' ')
	if [ -n "$f" ]; then
		skip "$what" "busier cgroups of others on this host: $f"
		return
	fi
	"$@"
	ok $? "$what"
}
not() { ! "$@"; }

run one -v --perf-use-cgroups --perf-max-cgroups 1
ok $? "--perf-max-cgroups 1: the daemon ran one cycle"
places one "... the busiest cgroup's process (A) is sampled" has one cgbusy_a
places one "... B's process is not" not has one cgbusy_b
has one cgbusy_out; ok $(( ! $? )) "... the process outside both is not"
grep -q "INFO.*--perf-use-cgroups: sampling only the processes of the 1 busiest cgroups under $CG" "$TMP/one.err"
ok $? "... one INFO line names the mode"
grep -q "DEBUG.*perf cgroups this cycle: 1 of [0-9]* with processes" \
    "$TMP/one.err"
ok $? "... and a debug line the cgroups chosen"
if [ -n "$PY" ]; then
	grep -q "cg_spin_outside" "$TMP/one.out"/profile_*.col
	ok $? "... a Python process outside them keeps its Python stacks"
else
	skip "... a Python process outside them keeps its Python stacks" \
	    "no python plugin or no python3"
fi

run two -v --perf-use-cgroups --perf-max-cgroups 2
ok $? "--perf-max-cgroups 2: the daemon ran one cycle"
places two "... A's and B's processes are sampled" \
    eval 'has two cgbusy_a && has two cgbusy_b'
has two cgbusy_out; ok $(( ! $? )) "... the process outside both is not"

run dock -v --perf-use-cgroups --perf-max-cgroups 1 \
    --perf-max-docker-containers 1
ok $? "--perf-max-docker-containers 1 --perf-max-cgroups 1: one cycle"
places dock "... the container's process is sampled" has dock cgbusy_d
has dock cgbusy_a; ok $(( ! $? )) "... busier A's is not (containers first)"
has dock cgbusy_out; ok $(( ! $? )) "... the process outside is not"

run all
ok $? "without --perf-use-cgroups: the daemon ran one cycle"
has all cgbusy_a && has all cgbusy_b && has all cgbusy_d &&
    has all cgbusy_out
ok $? "... all four processes are sampled"

run none --perf-use-cgroups --perf-max-cgroups 0
ok $? "--perf-max-cgroups 0: the daemon still runs"
grep -q "WARN.*selects no cgroup: perf is disabled" "$TMP/none.err"
ok $? "... one WARN line says perf is disabled, as in gProfiler"
grep -q cgbusy "$TMP/none.comms"; ok $(( ! $? )) "... and nothing is sampled"
done_testing

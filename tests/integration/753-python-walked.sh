#!/bin/sh
# Python frames walked in the sample: the perf plugin's BPF program follows
# CPython's frame chain from the sampled thread's state (the layout the
# Python plugin gives it, plugin ABI 1.6) and the frames travel in the
# sample, so a sample costs no wake-up and no read of the process.  For
# the three frame layouts (3.8's PyFrameObject with a 4-byte f_lasti, 3.12's
# interpreter frames behind a cframe with C-stack shims, 3.13's
# current_frame), on this kernel:
#   - a busy nested workload's samples are walked (perf_walked_samples, the
#     Python plugin's "walked in the sample") and give its stack, with the
#     qualified names and first lines the reader gives; once its code
#     objects are known, they wake the agent no more (perf_walk_wakeups);
#   - a recursion deeper than the walk (150 frames) falls back to the
#     reader after a wake-up (perf_walk_too_deep) and keeps every frame;
#   - with --perf-backend perf-events (no BPF), nothing is walked and the
#     stacks are the same;
#   - a thread with no Python frames at all (a C library's worker started
#     through ctypes) stops waking the agent: it is registered as such
#     for a second at a time (GP_WALK_ROOT_NONE), so its samples come
#     walked, with nothing to add; they keep the worker's native stack.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/workloads/py_lib.sh"
[ "$(id -u)" -eq 0 ] || skip_all "needs root"
[ -x "$GP_BIN" ] || skip_all "no daemon"
tap_tmpdir
wl="$top_srcdir/tests/workloads"
interps=$(py_interps | awk '$1 == "3.8" || $1 == "3.12" || $1 == "3.13"')
[ -n "$interps" ] || skip_all "no CPython 3.8, 3.12 or 3.13"

# walk_check COL LOG WANT_WALKED: the stacks and the counters
walk_check() {
	"$PYTHON3" - "$@" <<'PY'
import json, re, sys
col, log, walked = sys.argv[1], sys.argv[2], sys.argv[3] == "1"
lines = open(col).read().splitlines()
md = json.loads(lines[0][2:])["metadata"]
nested = deep = deepest = 0
for line in lines[1:]:
    st, _, n = line.rpartition(" ")
    fr = st.split(";")
    if any(f.startswith("Worker.step (") or f.startswith("step (")
           for f in fr) and any(f.startswith("outer (") for f in fr):
        nested += int(n)
    r = sum(1 for f in fr if f.startswith("recurse ("))
    if r:
        deep += int(n)
        deepest = max(deepest, r)
m = re.findall(r"python: snapshot: \d+ stacks, (\d+) samples \((\d+) walked",
               open(log).read())
samples, nwalked = (int(m[-1][0]), int(m[-1][1])) if m else (0, 0)
print("# nested %d, deep %d (deepest %d recurse frames); python %d samples,"
      " %d walked; perf_walked_samples %s, perf_walk_too_deep %s,"
      " perf_walk_wakeups %s"
      % (nested, deep, deepest, samples, nwalked,
         md.get("perf_walked_samples"), md.get("perf_walk_too_deep"),
         md.get("perf_walk_wakeups")))
def ok(c, what):
    print(("ok " if c else "not ok ") + what)
ok(nested >= 50, "the nested stack (outer ... step), %d samples" % nested)
ok(deep >= 50 and deepest >= 150, "the deep recursion whole (%d frames)"
   % deepest)
if walked:
    ok(md.get("perf_walked_samples", 0) >= nested * 0.8,
       "the nested workload's samples walked in the BPF program")
    ok(nwalked >= nested * 0.8, "the Python plugin took them as walked")
    ok(md.get("perf_walk_too_deep", 0) > 0,
       "the recursion deeper than the walk fell back to the reader")
    # five code objects, known after the first samples: a timer would
    # have woken the agent 4 times a second
    ok(md.get("perf_walk_wakeups", 99) <= 10,
       "walked samples of known code woke nobody (%s wake-ups)"
       % md.get("perf_walk_wakeups"))
else:
    ok("perf_walked_samples" not in md and nwalked == 0,
       "nothing walked without BPF")
PY
}

cat >"$TMP/worker.c" <<'C'
#include <pthread.h>
volatile unsigned long worker_sink;
static void *spin(void *a) { for (;;) worker_sink++; return a; }
void start_worker(void) { pthread_t t; pthread_create(&t, 0, spin, 0); }
C
cc -O1 -shared -fPIC -o "$TMP/worker.so" "$TMP/worker.c" -lpthread
ok $? "a C worker library built"
cat >"$TMP/native.py" <<'PY'
import ctypes, sys, time
ctypes.CDLL(sys.argv[1]).start_worker()
print("ready", flush=True)
time.sleep(3600)
PY

for spec in $(echo "$interps" | tr ' ' ':'); do
	v=${spec%%:*}; py=${spec#*:}
	"$py" "$wl/py_nested.py" >"$TMP/ready.n" 2>&1 & nested=$!
	"$py" "$wl/py_deep.py" 150 >"$TMP/ready.d" 2>&1 & deep=$!
	py_wait_ready "$TMP/ready.n" && py_wait_ready "$TMP/ready.d"
	ok $? "$v: workloads ready"
	for backend in bpf perf-events; do
		# perf-events only once: it walks nothing whatever the version
		[ $backend = perf-events ] && [ "$v" != 3.12 ] && continue
		py_profile "$TMP/$v-$backend" 6 -f 99 -v --perf-backend \
		    $backend --pids $nested,$deep
		ok $? "$v $backend: daemon ran one cycle"
		col=$(ls "$TMP/$v-$backend"/profile_*.col 2>/dev/null | head -1)
		if [ -z "$col" ]; then
			ok 1 "$v $backend: a profile"
			continue
		fi
		walk_check "$col" "$TMP/$v-$backend/log" \
		    $([ $backend = bpf ] && echo 1 || echo 0) >"$TMP/res"
		grep '^#' "$TMP/res"
		grep -v '^#' "$TMP/res" >"$TMP/res.ok"
		while read -r line; do
			case $line in
			"ok "*) ok 0 "$v $backend: ${line#ok }" ;;
			*) ok 1 "$v $backend: ${line#not ok }" ;;
			esac
		done <"$TMP/res.ok"
	done
	kill $nested $deep 2>/dev/null
	wait $nested $deep 2>/dev/null
	[ "$v" = 3.12 ] || continue
	"$py" "$TMP/native.py" "$TMP/worker.so" >"$TMP/ready.w" 2>&1 & native=$!
	py_wait_ready "$TMP/ready.w"
	ok $? "$v: native worker ready"
	py_profile "$TMP/$v-native" 6 -f 99 --pids $native
	ok $? "$v native: daemon ran one cycle"
	col=$(ls "$TMP/$v-native"/profile_*.col 2>/dev/null | head -1)
	{ "$PYTHON3" - "$col" <<'PY'
import json, sys
lines = open(sys.argv[1]).read().splitlines()
md = json.loads(lines[0][2:])["metadata"]
n, w, r = md["perf_samples"], md["perf_walked_samples"], md["perf_walk_no_root"]
spin = sum(int(l.rpartition(" ")[2]) for l in lines[1:]
           if "spin_[pn]" in l.rpartition(" ")[0])
print("# native worker: %d samples, %d walked, %d without a root; %d in "
      "spin_[pn]" % (n, w, r, spin))
print("ok" if n >= 100 and w >= 0.8 * n and r <= 0.1 * n else "not ok")
print("ok" if spin >= 0.8 * n else "not ok")
PY
	} >"$TMP/res.w" 2>&1
	grep '^#' "$TMP/res.w"
	[ "$(sed -n 2p "$TMP/res.w")" = ok ]
	ok $? "$v native: the worker thread's samples stop waking the agent"
	[ "$(sed -n 3p "$TMP/res.w")" = ok ]
	ok $? "$v native: and keep its native stack (spin_[pn])"
	kill $native 2>/dev/null
	wait $native 2>/dev/null
done
done_testing

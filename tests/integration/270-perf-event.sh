#!/bin/sh
# --perf-event and --perf-event-period (gProfiler's perf record -e EVENT /
# -c N): the profile reflects the event.  perf_faults spends its CPU in
# burn_cpu and takes its page faults in fault_pages: on page-faults the
# samples land in fault_pages, on cpu-clock (the control) in burn_cpu.  A
# hardware event on a host without a PMU fails in one line naming the
# event and the fix; tracepoints are read from tracefs (mounted in a
# private mount namespace here).
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/workloads/perf_lib.sh"
perf_require
[ -x "$GP_BIN" ] || skip_all "daemon not built"
[ -x "$WL/perf_faults" ] || skip_all "perf_faults workload not built"
tap_tmpdir

# gp NAME ARGS...: one cycle over the workload; $TMP/NAME.log, NAME.col.
gp() {
	name=$1
	shift
	rm -rf "$TMP/$name"
	"$GP_BIN" --plugin-dir "$GP_PLUGIN_DIR" --no-python --no-java \
	    --no-flamegraph -o "$TMP/$name" --pid-file '' "$@" \
	    >"$TMP/$name.log" 2>&1
	rc=$?
	cp "$TMP/$name/last_profile.col" "$TMP/$name.col" 2>/dev/null ||
	    : >"$TMP/$name.col"
}
# share NAME FUNC: percent of NAME's samples with FUNC in the stack.
share() {
	"$PYTHON3" - "$TMP/$1.col" "$2" <<'PY'
import sys
tot = hit = 0
for line in open(sys.argv[1]):
    if line.startswith("#") or " " not in line:
        continue
    stack, n = line.rstrip("\n").rsplit(" ", 1)
    tot += int(n)
    hit += int(n) if ";" + sys.argv[2] in stack else 0
print(100 * hit // tot if tot else -1)
PY
}
# md NAME KEY: the metadata value, JSON-encoded.
md() {
	head -1 "$TMP/$1.col" | cut -c3- | "$PYTHON3" -c '
import json, sys
print(json.dumps(json.load(sys.stdin)["metadata"].get(sys.argv[1])))' "$2"
}

"$WL/perf_faults" -t 120 & wl=$!
trap 'kill $wl 2>/dev/null' EXIT
sleep 0.3

gp pf -d 2 --pids $wl --perf-event page-faults --perf-event-period 100
ok $rc "--perf-event page-faults --perf-event-period 100: one cycle (exit $rc)"
s=$(share pf fault_pages)
b=$(share pf burn_cpu)
[ "$s" -ge 90 ] && [ "$b" -le 5 ]
ok $? "page-faults: fault_pages in $s% of the samples, burn_cpu in $b%"
[ "$(md pf perf_event)" = '"page-faults"' ] &&
    [ "$(md pf perf_event_type)" = '"software"' ] &&
    [ "$(md pf perf_event_period)" = 100 ]
ok $? "metadata: perf_event page-faults, software, period 100"
grep -q "sampling [0-9]* CPUs every 100 events (page-faults, software" \
    "$TMP/pf.log"
ok $? "start-up line names the event and the period"
! grep -q "no effect here.*perf-event" "$TMP/pf.log"
ok $? "... and neither flag is named as inert"

gp cc -d 2 --pids $wl
s=$(share cc fault_pages)
b=$(share cc burn_cpu)
[ "$rc" -eq 0 ] && [ "$b" -ge 60 ] && [ "$b" -gt "$s" ]
ok $? "control, cpu-clock: burn_cpu in $b% of the samples, fault_pages in $s%"

# A period on the default event: cpu-clock every 1 ms is ~1000 samples a
# second a CPU, far above -f 11.
gp per -d 2 --perf-event-period 1000000
n=$(md per perf_samples)
[ "$rc" -eq 0 ] && [ "$(md per perf_event_period)" = 1000000 ] &&
    [ "$n" -ge 1500 ] && [ "$n" -le 6000 ]
ok $? "--perf-event-period 1000000 alone: $n samples of cpu-clock in 2 s"

# By frequency (no period) the kernel sets the period: few samples at -f 11.
gp pff -d 2 --pids $wl --perf-event faults --perf-mode smart
[ "$rc" -eq 0 ] && [ "$(md pff perf_event)" = '"faults"' ] &&
    [ "$(md pff perf_event_period)" = null ]
ok $? "--perf-event faults (perf's alias) by frequency: runs, no period"
[ "$(share pff burn_cpu)" -le 0 ]
ok $? "... no sample in burn_cpu"
grep -q "stacks from frame pointers (--perf-mode smart is not used" \
    "$TMP/pff.log" && [ "$(md pff perf_mode)" = '"fp"' ]
ok $? "... with --perf-mode smart: fp, said once, as in gProfiler"

# A hardware event: sampled where the host has a PMU, else one clear line.
gp hw -d 1 --perf-event cycles
if perf stat -e cycles true 2>&1 | grep -q "not supported" ||
    grep -q "no hardware PMU" "$TMP/hw.log"; then
	[ "$rc" -eq 1 ] && grep -q "^ERROR perf: --perf-event cycles: cannot \
sample this hardware event.*no hardware PMU.*use a software event" "$TMP/hw.log"
	ok $? "cycles without a PMU: exit $rc, one line naming it and the fix"
	! grep -q "sampling [0-9]* CPUs" "$TMP/hw.log"
	ok $? "... and no fallback to another event"
else
	[ "$rc" -eq 0 ] && [ "$(md hw perf_event)" = '"cycles"' ]
	ok $? "cycles with a PMU: sampled (exit $rc)"
	skip "no fallback" "this host has a PMU"
fi

gp bad -n --perf-event cyclez
[ "$rc" -eq 2 ] && grep -q "perf-event 'cyclez': unknown event" "$TMP/bad.log"
ok $? "an unknown event: exit $rc, named"
gp mod -n --perf-event cycles:pp
[ "$rc" -eq 2 ] && grep -q "modifiers" "$TMP/mod.log"
ok $? "a modifier (cycles:pp): exit $rc, refused as such"
# Custom events (--hw-events-file, gProfiler's hw_events.json): a name perf
# does not know is looked up for this host's CPU model; its raw code is
# what is sampled (page-faults here, the only kind this VM can sample).
model=$(sed -n 's/^model name[[:space:]]*:[[:space:]]*//p' /proc/cpuinfo |
    head -1 | sed 's/[[:space:]]*$//')
"$PYTHON3" - "$model" >"$TMP/hw.json" <<'PY'
import json, sys
print(json.dumps({"_comment": "custom events for the test",
    "MY_FAULTS": {sys.argv[1]: {"raw": "page-faults"},
                  "Some Other CPU": {"raw": "r01c2"}},
    "ELSEWHERE": {"Some Other CPU": {"raw": "r01c2"}},
    "page-faults": {sys.argv[1]: {"raw": "cpu-clock"}}}, indent=1))
PY
gp hw -d 2 --pids $wl --perf-event MY_FAULTS --hw-events-file "$TMP/hw.json" \
    --perf-event-period 100
s=$(share hw fault_pages)
[ "$rc" -eq 0 ] && [ "$s" -ge 90 ]
ok $? "a custom event from --hw-events-file (page-faults on '$model'): exit $rc, fault_pages in $s%"
[ "$(md hw perf_event)" = '"MY_FAULTS"' ] &&
    grep -q "perf-event MY_FAULTS: page-faults from $TMP/hw.json" "$TMP/hw.log"
ok $? "... named as the user named it, its raw code and file said once"
! grep -q "no effect here.*hw-events-file" "$TMP/hw.log"
ok $? "... and --hw-events-file is not named as inert"
gp hwpf -n --perf-event page-faults --hw-events-file "$TMP/hw.json"
[ "$rc" -eq 0 ] && ! grep -q "custom event" "$TMP/hwpf.log"
ok $? "an event perf knows wins over the file's entry of that name, as in gProfiler"
gp hwplat -n --perf-event ELSEWHERE --hw-events-file "$TMP/hw.json"
[ "$rc" -eq 2 ] && grep -q "not defined for this host's platform ('$model'.*'Some Other CPU'" "$TMP/hwplat.log"
ok $? "a custom event for another platform: exit $rc, names this one and the file's"
gp hwnone -n --perf-event NOPE --hw-events-file "$TMP/hw.json"
[ "$rc" -eq 2 ] && grep -q "'NOPE' is not defined there" "$TMP/hwnone.log"
ok $? "an event neither perf nor the file knows: exit $rc, named"
mkfifo "$TMP/hw.fifo"
timeout 20 "$GP_BIN" --plugin-dir "$GP_PLUGIN_DIR" --no-python --no-java \
    -o "$TMP/hwfifo" --pid-file '' -n --perf-event MY_FAULTS \
    --hw-events-file "$TMP/hw.fifo" >"$TMP/hwfifo.log" 2>&1
rc=$?
[ "$rc" -eq 2 ] && grep -q "hw-events-file $TMP/hw.fifo cannot be read" "$TMP/hwfifo.log"
ok $? "a FIFO as --hw-events-file: refused at once (exit $rc), never opened for reading"
printf '{"MY_FAULTS": {' >"$TMP/hw.bad"
gp hwbad -n --perf-event MY_FAULTS --hw-events-file "$TMP/hw.bad"
[ "$rc" -eq 2 ] && grep -q "not valid JSON (unexpected end of the file" "$TMP/hwbad.log"
ok $? "a truncated file: exit $rc, said so"
gp esc -n --perf-event "$(printf 'sched:\377\033[2Jx')"
[ "$rc" -eq 2 ] && grep -q "perf-event 'sched:\\\\xff\\\\x1b\[2Jx'" "$TMP/esc.log" &&
    ! LC_ALL=C grep -q "$(printf '[\033\377]')" "$TMP/esc.log"
ok $? "an invalid byte and an escape sequence in the value are logged escaped (\\xff, \\x1b)"

# Tracepoints.  tracefs mounted in a private namespace only.
if [ ! -e /sys/kernel/tracing/events ]; then
	gp tpn -d 1 --perf-event sched:sched_switch
	[ "$rc" -eq 1 ] && grep -q "tracefs is not mounted.*mount -t tracefs" \
	    "$TMP/tpn.log"
	ok $? "a tracepoint without tracefs: exit $rc, says how to mount it"
else
	skip "tracepoint without tracefs" "tracefs is mounted here"
fi
if command -v unshare >/dev/null && unshare -m sh -c \
    'mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null ||
    test -e /sys/kernel/tracing/events' 2>/dev/null; then
	rm -rf "$TMP/tp"
	unshare -m sh -c 'test -e /sys/kernel/tracing/events ||
	    mount -t tracefs nodev /sys/kernel/tracing; exec "$@"' sh \
	    "$GP_BIN" --plugin-dir "$GP_PLUGIN_DIR" --no-python --no-java \
	    --no-flamegraph -o "$TMP/tp" --pid-file '' -d 2 --pids $wl \
	    --perf-event kmem:mm_page_alloc --perf-event-period 10 \
	    >"$TMP/tp.log" 2>&1
	rc=$?
	cp "$TMP/tp/last_profile.col" "$TMP/tp.col" 2>/dev/null ||
	    : >"$TMP/tp.col"
	s=$(share tp fault_pages)
	[ "$rc" -eq 0 ] && [ "$s" -ge 70 ] && [ "$(share tp burn_cpu)" -le 5 ]
	ok $? "tracepoint kmem:mm_page_alloc every 10th: fault_pages in $s%"
	grep -q "fault_pages;.*_\[k\]" "$TMP/tp.col" &&
	    [ "$(md tp perf_event_type)" = '"tracepoint"' ]
	ok $? "... under the kernel's allocation path, typed tracepoint"
else
	skip "tracepoint" "no mount namespace or tracefs"
	skip "tracepoint kernel frames" "no mount namespace or tracefs"
fi
done_testing

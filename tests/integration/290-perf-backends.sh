#!/bin/sh
# perf plugin, its samplers: the perf-events backend (no BPF, what
# `perf record` does) must give what the BPF one gives, so the fidelity
# tests of fp and dwarf stacks and of exec tracking are run again through
# it (200, 230, 250-perf-exec with PERF_TEST_BACKEND), and those of fp and
# dwarf stacks through the BPF program for older kernels (bpf-compat: the
# same program without the task's BTF helpers), and all three through the
# legacy build of that program (bpf-legacy: perf events' rings, no global
# data, no loop, for 4.18 to 5.7), with Python named through it too
# (no frame walk there: its samples wake the Python profiler); with BPF denied (no
# CAP_BPF, no CAP_SYS_ADMIN: as on a locked-down host) the default, auto,
# falls back to it and says so, while --perf-backend bpf fails and says why.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/workloads/perf_lib.sh"
perf_require
tap_tmpdir

# The tests again, through perf events and the compat program: each of
# their checks is one here.
for bt in perf-events:200-perf-shares perf-events:230-perf-dwarf \
    perf-events:250-perf-exec bpf-compat:200-perf-shares \
    bpf-compat:230-perf-dwarf bpf-legacy:200-perf-shares \
    bpf-legacy:230-perf-dwarf bpf-legacy:250-perf-exec; do
	be=${bt%%:*} t=${bt#*:}
	PERF_TEST_BACKEND=$be sh "$top_srcdir/tests/integration/$t.sh" \
	    >"$TMP/$t.tap" 2>&1
	rc=$?
	n=0
	while IFS= read -r line; do
		case $line in
		"ok "*"# SKIP"*)
			skip "$be, $t: ${line#ok * - }" "skipped there"; n=$((n + 1)) ;;
		"ok "*)
			ok 0 "$be, $t: ${line#ok * - }"; n=$((n + 1)) ;;
		"not ok "*)
			ok 1 "$be, $t: ${line#not ok * - }"; n=$((n + 1)) ;;
		"1..0 # SKIP"*)
			skip "$be, $t" "${line#1..0 # SKIP }"; n=$((n + 1)) ;;
		esac
	done <"$TMP/$t.tap"
	[ "$n" -gt 0 ] || { ok 1 "$be, $t printed no result"; \
	    sed 's/^/# /' "$TMP/$t.tap" | tail -20; }
	[ "$rc" -eq 0 ] || { diag "$t exited $rc"; grep '^# ' "$TMP/$t.tap" |
	    tail -12 | sed "s/^# /$be, $t: /" | while IFS= read -r l; do
		diag "$l"; done; }
done

# The daemon: which backend took the samples is in the log and the
# profile's metadata.
daemon() {	# out-dir secs gprofiler-args (run under $PRE)
	dir=$1; secs=$2; shift 2
	mkdir -p "$dir"
	$PRE "$GP_BIN" --plugin-dir "$GP_PLUGIN_DIR" -o "$dir" -d "$secs" \
	    --no-flamegraph --python-mode disabled --java-mode disabled "$@" \
	    >"$dir.log" 2>&1
	_rc=$?
	# A failure shows its own lines (a sanitizer's report first), unless
	# it is the one expected (EXPECT_FAIL set).
	[ $_rc -eq 0 ] || [ -n "${EXPECT_FAIL:-}" ] ||
	    sanitizer_report "$dir.log" ||
	    grep -v '^$' "$dir.log" | tail -20 | cut -c1-300 | sed 's/^/# /'
	return $_rc
}
backend_of() { head -1 "$1"/profile_*.col 2>/dev/null | cut -c3- |
    "$PYTHON3" -c 'import json,sys; print(json.load(sys.stdin)["metadata"].get("perf_backend"))'; }
named_busy() { grep -c '^[^ ]*;perf_busy;.*hot_' "$1"/profile_*.col; }

"$WL/perf_busy" -t 90 & busy=$!
perf_wait_exec $busy perf_busy
PRE= daemon "$TMP/pev" 3 --perf-backend perf-events
ok $? "--perf-backend perf-events: one cycle"
grep -q 'through perf events' "$TMP/pev.log"
ok $? "its start-up line names the backend"
[ "$(backend_of "$TMP/pev")" = perf-events ]
ok $? "the profile's metadata says perf_backend perf-events"
PRE= daemon "$TMP/bpf" 3
[ "$(backend_of "$TMP/bpf")" = bpf ]
ok $? "auto picks BPF where it loads ($(backend_of "$TMP/bpf"))"

# The legacy program with a Python process: its samples wake the Python
# profiler, which reads the sampled thread (no walk in this program).
py=$(. "$top_srcdir/tests/workloads/py_lib.sh"; py_interps | awk 'NR == 1 { print $2 }')
"$py" -S "$top_srcdir/tests/vm/py_hot.py" 30 & pyw=$!
sleep 1
PRE= daemon "$TMP/legacy" 4 --perf-backend bpf-legacy --python-mode auto
ok $? "--perf-backend bpf-legacy: one cycle"
grep -q 'through a BPF program for kernels before 5.8' "$TMP/legacy.log"
ok $? "its start-up line names the legacy program"
[ "$(backend_of "$TMP/legacy")" = bpf-legacy ]
ok $? "the profile's metadata says perf_backend bpf-legacy"
n=$(named_busy "$TMP/legacy")
[ "${n:-0}" -gt 0 ]
ok $? "the legacy program: the busy program's hot functions named ($n stacks)"
grep -q ';vm_py_outer ([^)]*)_\[p\];vm_py_hot ([^)]*)_\[p\]' \
    "$TMP"/legacy/profile_*.col
ok $? "the legacy program: Python frames named (vm_py_outer;vm_py_hot, _[p])" ||
    { grep -v '^#' "$TMP"/legacy/profile_*.col | grep python |
      cut -c1-200 | head -3 | sed 's/^/# /'; }
! grep -E '^(WARN|ERROR)' "$TMP/legacy.log" | sed 's/^/# /' | grep .
ok $? "the legacy program: no WARN or ERROR line"
kill $pyw 2>/dev/null

# BPF denied to root: what a locked-down host or a seccomp'd container does.
PRE="setpriv --inh-caps=-bpf,-sys_admin --bounding-set=-bpf,-sys_admin --"
daemon "$TMP/auto" 3
ok $? "auto without BPF: one cycle"
grep 'sampling through perf events instead' "$TMP/auto.log" | head -1 |
    grep -q 'cannot load the BPF sampler'
ok $? "auto says BPF could not load and that perf events sample instead"
[ "$(backend_of "$TMP/auto")" = perf-events ]
ok $? "auto without BPF: perf_backend perf-events"
n=$(named_busy "$TMP/auto")
[ "${n:-0}" -gt 0 ]
ok $? "auto without BPF: the busy program's hot functions are named ($n stacks)" ||
    { grep -v '^#' "$TMP"/auto/profile_*.col | cut -c1-160 | head -5 | sed 's/^/# /'; }
EXPECT_FAIL=1 daemon "$TMP/forced" 3 --perf-backend bpf
rc=$?
grep -q 'cannot load the BPF sampler' "$TMP/forced.log" &&
    ! grep -q 'through perf events' "$TMP/forced.log"
ok $? "--perf-backend bpf without BPF: no fallback, the reason logged (exit $rc)"
kill $busy 2>/dev/null; wait

"$GP_BIN" --plugin-dir "$GP_PLUGIN_DIR" --perf-backend ebpf -d 1 -o "$TMP/x" \
    >/dev/null 2>"$TMP/bad.err"
[ $? -eq 2 ] && grep -q 'perf-backend' "$TMP/bad.err"
ok $? "an unknown backend is a usage error naming the option"
done_testing

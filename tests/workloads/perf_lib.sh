# Helpers for the perf plugin's integration tests (tests/integration/2x-perf-*):
# source after tests/tap.sh.  perf_profile runs the perf plugin for one cycle
# and leaves folded stacks "comm;frame;...;frame count" in a file.
WL=$top_builddir/tests/workloads
PERF_SO=$GP_PLUGIN_DIR/perf.so
[ -e "$PERF_SO" ] || PERF_SO=$top_builddir/plugins/perf/.libs/perf.so
PERF_HOST=$top_builddir/tests/unit/test_perf_host

perf_require() {
	[ "$(id -u)" -eq 0 ] || skip_all "needs root for BPF"
	[ -e "$PERF_SO" ] || skip_all "perf plugin not built"
	[ -d /sys/kernel/btf ] || skip_all "kernel without BTF"
}

# perf_profile OUT SECONDS [key=value...]: profile the host for SECONDS with
# the plugin (through the daemon unless PERF_TEST_DAEMON=0,
# else through the test host driver); OUT gets the folded stacks, OUT.md the
# metadata lines, OUT.col the daemon's whole .col (daemon runs only).
perf_profile() {
	out=$1; secs=$2; shift 2
	# the profiled processes' CPU over the call, for perf_want
	_pp_pids=$(for kv in "$@"; do
		case $kv in pids=*) echo "${kv#pids=}" | tr , ' ';; esac
	done)
	_pp_t0=$(date +%s.%N)
	for _pp_pid in $_pp_pids; do
		echo "$_pp_pid $(perf_cpu_s $_pp_pid)"
	done >"$out.cpu0"
	perf_profile_call "$out" "$secs" "$@"
	rc=$?
	{
		echo "window $secs"
		echo "wall $(echo "$(date +%s.%N) $_pp_t0" | awk '{ print $1 - $2 }')"
		while read -r _pp_pid _pp_c0; do
			# gone (reaped by the shell) or a zombie: ended
			_pp_c1=$(perf_cpu_s $_pp_pid)
			[ -z "$_pp_c1" ] || echo "cpu $_pp_pid $_pp_c1 $_pp_c0"
			perf_alive $_pp_pid || echo "ended $_pp_pid"
		done <"$out.cpu0"
	} >"$out.cpu"
	return $rc
}

# perf_cpu_s PID: its user + system CPU so far, in seconds.
perf_cpu_s() {
	awk '{ sub(/^.*\) /, ""); printf "%.2f\n", ($12 + $13) / 100 }' \
	    "/proc/$1/stat" 2>/dev/null
}

# perf_alive PID: PID still runs (neither gone nor a zombie).
perf_alive() {
	_st=$(sed 's/^.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f1)
	[ -n "$_st" ] && [ "$_st" != Z ] && [ "$_st" != X ]
}

# perf_want OUT PID HZ MIN: sets PERF_WANT to the samples of PID a profile
# should hold: MIN, or, when the host starved PID (the suite's neighbours
# on a loaded CI host), half of what its CPU time over the agent's window
# gives at HZ (never under 50), said in a diag line.  A PID that ended
# before the run did still wants MIN: the test's workload was too short,
# and a diag line says so.
perf_want() {
	_w=$(awk -v pid="$2" -v hz="$3" -v min="$4" '
	    $1 == "window" { w = $2 } $1 == "wall" { wall = $2 }
	    $1 == "cpu" && $2 == pid { cpu = $3 - $4 }
	    $1 == "ended" && $2 == pid { ended = 1 }
	    END {
		if (ended) { print min; exit }	# the test is at fault: said below
		want = int(0.5 * hz * cpu * (wall > w ? w / wall : 1))
		if (want >= min) { print min; exit }
		if (want < 50)
			want = 50
		printf "%d process %s ran %.2f s on CPU over the %.1f s the " \
		    "agent ran (a %d s window): expecting %d samples, not %d\n",
		    want, pid, cpu, wall, w, want, min
	    }' "$1.cpu")
	export PERF_WANT=${_w%% *}
	[ "$PERF_WANT" = "$_w" ] || diag "${_w#* }"
	! grep -qx "ended $2" "$1.cpu" ||
	    diag "process $2 ended before the agent's run did: its workload was too short for this host's start-up"
}

perf_profile_call() {
	out=$1; secs=$2; shift 2
	# PERF_TEST_BACKEND=perf-events: the same checks through that sampler
	[ -n "${PERF_TEST_BACKEND:-}" ] && set -- "$@" "perf-backend=$PERF_TEST_BACKEND"
	if [ "${PERF_TEST_DAEMON:-1}" = 1 ] && [ -x "$GP_BIN" ]; then
		perf_profile_daemon "$out" "$secs" "$@" && return 0
		diag "daemon run failed; using the test host"
	fi
	set -- $(for kv in "$@"; do printf -- '-o %s ' "$kv"; done)
	"$PERF_HOST" "$PERF_SO" -d "$secs" "$@" >"$out.raw" 2>"$out.err"
	rc=$?
	grep -v '^#' "$out.raw" >"$out"
	grep '^# ' "$out.raw" | sed 's/^# //' >"$out.md"
	return $rc
}

perf_profile_daemon() {
	out=$1; secs=$2; shift 2
	dir=$(mktemp -d "$TMP/daemon.XXXXXX")
	args=""
	for kv in "$@"; do args="$args --${kv%%=*} ${kv#*=}"; done
	# shellcheck disable=SC2086
	"$GP_BIN" --plugin-dir "$GP_PLUGIN_DIR" -o "$dir" -d "$secs" \
	    --no-flamegraph $args >"$out.err" 2>&1 || return 1
	col=$(ls "$dir"/profile_*.col 2>/dev/null | head -1)
	[ -n "$col" ] || return 1
	cp "$col" "$out.col"	# whole, for checks of its header
	# drop the header and the index and container frames
	tail -n +2 "$col" | cut -d';' -f3- >"$out"
	# the perf plugin's metadata as key=value lines, as the test host prints
	head -1 "$col" | cut -c3- | "${PYTHON3:-python3}" -c '
import json, sys
for k, v in json.load(sys.stdin)["metadata"].items():
    if k.startswith("perf_"):
        print("%s=%s" % (k, v))' >"$out.md"
}

# perf_wait_exec PID NAME: wait until PID has exec'ed NAME (comm).
perf_wait_exec() {
	i=0
	while [ $i -lt 50 ]; do
		[ "$(cat /proc/$1/comm 2>/dev/null)" = "$2" ] && return 0
		sleep 0.05; i=$((i + 1))
	done
	return 1
}

# perf_check_py SCRIPT ARGS...: run a Python checker printing "PASS what" /
# "FAIL what" / "# diag" lines and turn them into this test's TAP lines.
perf_check_py() {
	"$PYTHON3" "$@" >"$TMP/py.out" 2>&1
	rc=$?
	while IFS= read -r line; do
		case $line in
		PASS\ *) ok 0 "${line#PASS }" ;;
		FAIL\ *) ok 1 "${line#FAIL }" ;;
		*) diag "$line" ;;
		esac
	done <"$TMP/py.out"
	ok $rc "checker ran"
	# a failure says what the agent saw: its counters and complaints
	# ($2 is the profile perf_profile wrote, beside its .md and .err)
	if grep -q '^FAIL ' "$TMP/py.out" && [ -n "${2:-}" ]; then
		[ -f "$2.md" ] && grep -E '^perf_(backend|samples|dropped|cpus|drain|pids)' \
		    "$2.md" | sed 's/^/agent: /' | while IFS= read -r l; do diag "$l"; done
		[ -f "$2.err" ] && grep -E 'WARN|ERROR|CRIT' "$2.err" | head -20 |
		    while IFS= read -r l; do diag "agent: $l"; done
		# the window, the call's wall time and each workload's CPU
		# over it (perf_profile): a starved or ended workload shows
		[ -f "$2.cpu" ] && { tr '\n' ' ' <"$2.cpu"; echo; } | sed 's/^/run: /' |
		    while IFS= read -r l; do diag "$l"; done
	fi
	return 0
}

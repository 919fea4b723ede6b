# What every hostile-input test checks of the root agent, whatever the
# attack (docs/SECURITY.md, "Local users"): cycles keep coming on time, the
# attack costs the agent little CPU and memory, and SIGTERM still ends it
# within 2 s.  Source after tests/tap.sh.
#
#   attack_perf_setup                    a perf-plugin attack's start (after
#                                        perf_lib.sh): what it needs checked,
#                                        NOBODY, ONLY_PERF, $TMP/u for nobody
#   attack_start OUT D [AGENT ARGS...]   start the agent (AGENT_PID), log in OUT/log
#   attack_checks OUT D [CPU_S] [RSS_MB] the four checks, AGENT_PID stopped after
#
# Defaults: at most 2 s of agent CPU for the whole run and 64 MiB of peak RSS
# (VmHWM).  Under an AddressSanitizer build the CPU and memory bounds are
# not checked (shadow memory and instrumentation measure ASan, not the
# agent); cycles and SIGTERM are.

attack_perf_setup() {
	perf_require
	[ -x "$GP_BIN" ] || skip_all "daemon not built"
	command -v setpriv >/dev/null || skip_all "setpriv(1) missing"
	command -v objcopy >/dev/null || skip_all "objcopy(1) missing"
	NOBODY="--reuid=65534 --regid=65534 --clear-groups"
	# Only the perf plugin: the runtime profilers read no perf map or
	# debug file, and other processes on the host are not the test's.
	ONLY_PERF="--no-python --no-java --no-ruby --no-php --no-nodejs"
	tap_tmpdir
	chmod 0755 "$TMP"
	mkdir -p "$TMP/u"
}

# attack_maps_wait PARENT N M: waits (60 s at most) until N children of
# PARENT have M lines of maps or more (bench/maps_many.py's workload:
# mmap is quick, the children are many); prints how many have.
attack_maps_wait() {
	_i=0
	while [ $_i -lt 600 ]; do
		_full=0
		for _k in $(pgrep -P "$1"); do
			[ "$(wc -l <"/proc/$_k/maps" 2>/dev/null || echo 0)" -ge "$3" ] &&
			    _full=$((_full + 1))
		done
		[ $_full -ge "$2" ] && break
		sleep 0.1
		_i=$((_i + 1))
	done
	echo "$_full"
}

attack_start() {
	_out=$1; _d=$2; shift 2
	mkdir -p "$_out"
	GPROFILER_LOCK_NAME="gptest-attack-$$-$(basename "$_out")" \
	    "$GP_BIN" --plugin-dir "$GP_PLUGIN_DIR" -o "$_out" -d "$_d" -c \
	    --no-flamegraph "$@" >"$_out/log" 2>&1 &
	AGENT_PID=$!
	ATTACK_T0=$(date +%s.%N)
}

# The agent's user + system CPU so far, in seconds ("" once it is gone).
attack_cpu_s() {
	awk '{ sub(/^.*\) /, ""); printf "%.2f\n", ($12 + $13) / 100 }' \
	    "/proc/$1/stat" 2>/dev/null
}

# The agent's peak resident set, in KiB.
attack_hwm_kb() {
	awk '$1 == "VmHWM:" { print $2 }' "/proc/$1/status" 2>/dev/null
}

# The seconds the agent's loop (its main thread) has waited for a CPU while
# runnable: on a CI host a compiler beside it takes that, not the attack
# (an agent blocked on a file or spinning on one does not wait there).
attack_wait_s() {
	awk '{ printf "%.2f\n", $2 / 1e9 }' "/proc/$1/schedstat" 2>/dev/null
}

# attack_gaps OUT D NOW [WAIT]: "ok" when from ATTACK_T0 to NOW no two
# profiles (or the start and the first, or the last and NOW) are further
# apart than D + 2 s, and the WAIT seconds the agent's loop could not get
# a CPU; the start is allowed 5 s more for the plugins' start-up.
attack_gaps() {
	{
		for f in "$1"/profile_*.col; do
			[ -f "$f" ] && stat -c %.3Y "$f"
		done
	} | sort -n | awk -v t0="$ATTACK_T0" -v now="$3" -v d="$2" \
	    -v w="${4:-0}" '
	    BEGIN { prev = t0; lim = d + 7 + w; worst = 0; n = 0 }
	    { g = $1 - prev; if (g > lim) bad = bad sprintf(" %.1f s", g)
	      if (g > worst) worst = g; prev = $1; lim = d + 2 + w; n++ }
	    END { g = now - prev; if (g > d + 2 + w) bad = bad sprintf(" %.1f s (to the end)", g)
	          if (g > worst) worst = g
	          if (n == 0) print "no profile"
	          else if (bad != "") print "gaps of" bad
	          else printf "ok (%d profiles, longest gap %.1f s)\n", n, worst }'
}

attack_checks() {
	_out=$1; _d=$2; _cpu=${3:-2}; _rss=${4:-64}
	_now=$(date +%s.%N)
	_wait=$(attack_wait_s "$AGENT_PID")
	_gaps=$(attack_gaps "$_out" "$_d" "$_now" "$_wait")
	diag "cycles: $_gaps; the loop waited ${_wait:-?} s for a CPU in all"
	case $_gaps in ok*) ok 0 "cycles came every ${_d} s (+2 s, + its wait for a CPU)" ;;
	    *) ok 1 "cycles came every ${_d} s (+2 s, + its wait for a CPU)" ;; esac
	_c=$(attack_cpu_s "$AGENT_PID")
	_h=$(attack_hwm_kb "$AGENT_PID")
	if [ -z "$_c" ]; then
		ok 1 "the agent was still running"
	elif asan_build; then
		skip "agent CPU <= ${_cpu} s" "ASan build"
		skip "agent peak RSS <= ${_rss} MiB" "ASan build"
	else
		diag "agent CPU ${_c} s, peak RSS ${_h} KiB"
		awk -v c="$_c" -v m="$_cpu" 'BEGIN { exit !(c <= m) }'
		ok $? "agent CPU ${_c} s <= ${_cpu} s"
		[ "${_h:-0}" -le $((_rss * 1024)) ]
		ok $? "agent peak RSS ${_h} KiB <= ${_rss} MiB"
	fi
	kill -TERM "$AGENT_PID" 2>/dev/null
	_i=0
	while kill -0 "$AGENT_PID" 2>/dev/null && [ $_i -lt 20 ]; do
		sleep 0.1; _i=$((_i + 1))
	done
	if kill -0 "$AGENT_PID" 2>/dev/null; then
		ok 1 "SIGTERM ended the agent within 2 s"
		kill -KILL "$AGENT_PID" 2>/dev/null
	else
		ok 0 "SIGTERM ended the agent within 2 s"
	fi
	wait "$AGENT_PID" 2>/dev/null
	if sanitizer_report "$_out/log"; then
		ok 1 "no sanitizer report"
	fi
}

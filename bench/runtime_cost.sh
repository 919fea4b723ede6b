#!/bin/bash
# What a runtime's stacks cost per sample (issue 30): for each runtime, one
# busy process of it beside a busy C process (tests/workloads/perf_busy),
# two agents side by side over the same window, continuous mode at 99 Hz:
# one with the runtime's plugin, one without it.  Steady state: each
# agent's CPU (its threads' run time from /proc/PID/task/*/schedstat, in
# ns, plus its waited-for children's from /proc/PID/stat) is taken when its
# first cycle's .col file appears and again when the last one of the window
# does; the runtime's samples are the counts of the stacks with a runtime
# frame (_[p], _[rb], _[php], _[j]) in the .col files between.  Prints per
# runtime: both agents' CPU, the samples, and
#
#	us/sample = (CPU with - CPU without) / runtime samples
#
# (target: <= 10 us).  Run as root from a build tree after make check:
#
#	bench/runtime_cost.sh [BUILDDIR] [SECONDS] [RUNTIME]...	(. 30 all)
#
# RUNTIME: py3.8 .. py3.13 (pyenv's CPython, `pyenv root`), py3.11deb
# (Debian's), ruby, php, java, node; missing interpreters are said.
# SECONDS is the measured window, in cycles of 10 s.  With RC_PIDS=1 both
# agents profile only the two workloads (--pids): on a shared host the
# other programs' starts and exits cost both agents, unevenly.
set -u
build=${1:-.}
secs=${2:-30}
shift 2 2>/dev/null || shift $#
cycle=10
ncycles=$(( (secs + cycle - 1) / cycle ))
gp=$build/gprofiler
plugdir=$build/tests/plugindir
busy=$build/tests/workloads/perf_busy
src=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d /tmp/runtimecost.XXXXXX)
kids=()
agents=()
cleanup() {
	[ ${#agents[@]} -gt 0 ] && kill -TERM "${agents[@]}" 2>/dev/null
	[ ${#kids[@]} -gt 0 ] && kill "${kids[@]}" 2>/dev/null
	wait 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
for x in "$gp" "$busy"; do
	[ -e "$x" ] || { echo "missing $x: build first (make check)"; exit 1; }
done
[ "$(id -u)" -eq 0 ] || { echo "run as root (BPF)"; exit 1; }
if [ -f "$build/Makefile" ]; then
	make -s -C "$build" tests/plugindir.stamp \
	    tests/plugindir-nodejs.stamp >/dev/null 2>&1 ||
	    { echo "cannot refresh $plugdir (make check first)"; exit 1; }
fi
pyroot=$(pyenv root 2>/dev/null || echo "${PYENV_ROOT:-$HOME/.pyenv}")
# Node's attach-maps talks to the inspector on 127.0.0.1: in a network
# namespace of its own (unshare -n, to run beside another agent) the
# loopback starts down.
ip link set lo up 2>/dev/null

# cpu_ns PID: the agent's CPU so far, threads and waited-for children.
cpu_ns() {
	local t s=0 v hz
	for t in /proc/"$1"/task/*/schedstat; do
		read -r v _ <"$t" 2>/dev/null && s=$((s + v))
	done
	hz=$(getconf CLK_TCK)
	# fields 16 and 17 of stat: cutime, cstime (after the comm's ')')
	v=$(sed 's/.*) //' /proc/"$1"/stat 2>/dev/null |
	    awk '{ print $14 + $15 }')
	echo $((s + ${v:-0} * 1000000000 / hz))
}

# ncol DIR: how many cycles the agent wrote.
ncol() {
	ls "$1"/profile_*.col 2>/dev/null | wc -l
}

# watch NAME PID: CPU at the first .col file and at the (1+ncycles)th;
# writes "cpu_ns" to $tmp/NAME.cpu and the window's files to NAME.files.
watch_agent() {
	local name=$1 pid=$2 d=$tmp/$1.d c0 c1 n i=0
	while [ "$(ncol "$d")" -lt 1 ]; do
		sleep 0.05; i=$((i + 1))
		[ $i -gt $(( (cycle + 20) * 20 )) ] && { echo 0 >"$tmp/$name.cpu"; return; }
	done
	c0=$(cpu_ns "$pid")
	ls "$d"/profile_*.col | sort >"$tmp/$name.skip"
	while [ "$(ncol "$d")" -lt $((ncycles + 1)) ]; do
		sleep 0.05
		kill -0 "$pid" 2>/dev/null || break
	done
	c1=$(cpu_ns "$pid")
	ls "$d"/profile_*.col | sort | comm -23 - "$tmp/$name.skip" |
	    head -n "$ncycles" >"$tmp/$name.files"
	echo $((c1 - c0)) >"$tmp/$name.cpu"
}

# samples NAME TAG: the stacks' counts with a TAG frame in the window.
samples() {
	local f s=0 v
	while read -r f; do
		v=$(grep -v '^#' "$f" | grep -F -- "$2" |
		    awk '{ s += $NF } END { print s + 0 }')
		s=$((s + v))
	done <"$tmp/$1.files"
	echo $s
}

# agent NAME ARGS...: a continuous agent under its own lock name.
agent() {
	local name=$1; shift
	mkdir -p "$tmp/$name.d"
	GPROFILER_LOCK_NAME="runtimecost-$name-$$" GPROFILER_CONFIG='' \
	    "$gp" --plugin-dir "$plugdir" -c -d "$cycle" -f 99 \
	    -o "$tmp/$name.d" --no-flamegraph \
	    --log-file "$tmp/$name.d/log" --spool-dir "$tmp/$name.d/spool" \
	    --state-dir "$tmp/$name.d/st" "$@" >/dev/null 2>&1 &
	agents+=($!)
}

# workload RT: start the runtime's busy process; its command on stdout
# through $wl (empty when the interpreter is missing).
start_workload() {
	local rt=$1 exe= life=$((secs + 3 * cycle + 30))
	case $rt in
	py3.1[0-3]|py3.[89])
		v=${rt#py}
		exe=$(ls -d "$pyroot"/versions/"$v".*/bin/python"$v" 2>/dev/null |
		    tail -1)
		[ -x "$exe" ] || return 1
		"$exe" "$src/tests/workloads/py_deep.py" 10 >/dev/null & ;;
	py3.11deb)
		[ -x /usr/bin/python3.11 ] || return 1
		/usr/bin/python3.11 "$src/tests/workloads/py_deep.py" 10 \
		    >/dev/null & ;;
	ruby)
		command -v ruby >/dev/null || return 1
		ruby "$src/tests/workloads/ruby_hot.rb" "$life" & ;;
	php)
		command -v php >/dev/null || return 1
		php "$src/tests/workloads/php_hot.php" "$life" & ;;
	java)
		command -v javac >/dev/null || return 1
		javac -d "$tmp" "$src/tests/workloads/java/HotLoop.java" ||
		    return 1
		java -cp "$tmp" HotLoop "$life" >/dev/null & ;;
	node)
		command -v node >/dev/null || return 1
		node "$src/tests/workloads/node_busy.js" "$life" >/dev/null & ;;
	*)	echo "unknown runtime $rt" >&2; return 1 ;;
	esac
	kids+=($!)
	return 0
}

# measure RT: both agents over one window; prints the row.
measure() {
	local rt=$1 on off tag
	case $rt in
	py*)	on=""; off="--python-mode disabled"; tag="_[p]" ;;
	ruby)	on=""; off="--ruby-mode disabled"; tag="_[rb]" ;;
	php)	on="--php-mode phpspy --php-proc-filter ^php$"
		off="--php-mode disabled"; tag="_[php]" ;;
	java)	on=""; off="--java-mode disabled"; tag="_[j]" ;;
	node)	on="--nodejs-mode attach-maps"; off="--nodejs-mode disabled"
		tag="_[j]" ;;
	esac
	kids=(); agents=()
	rm -rf "$tmp"/with.* "$tmp"/without.*
	if ! start_workload "$rt"; then
		printf "%-10s %s\n" "$rt" "missing (not installed here)"
		return
	fi
	"$busy" -t $((secs + 3 * cycle + 30)) -j 1 & kids+=($!)
	sleep 2		# the interpreters' start-up
	pids=
	[ -n "${RC_PIDS:-}" ] && pids="--pids ${kids[0]},${kids[1]}"
	# shellcheck disable=SC2086
	agent with $on $pids
	# shellcheck disable=SC2086
	agent without $off $pids
	watch_agent with "${agents[0]}" &
	w1=$!
	watch_agent without "${agents[1]}" &
	w2=$!
	wait $w1 $w2
	kill -TERM "${agents[@]}" 2>/dev/null
	kill "${kids[@]}" 2>/dev/null
	wait 2>/dev/null
	kids=(); agents=()
	cw=$(cat "$tmp/with.cpu"); co=$(cat "$tmp/without.cpu")
	n=$(samples with "$tag")
	if [ "$n" -gt 0 ]; then
		us=$(echo "scale=1; ($cw - $co) / 1000 / $n" | bc)
	else
		us=-
	fi
	printf "%-10s %9.3f %9.3f %8d %9s\n" "$rt" \
	    "$(echo "scale=6; $cw / 1000000000" | bc)" \
	    "$(echo "scale=6; $co / 1000000000" | bc)" "$n" "$us"
}

[ $# -eq 0 ] && set -- py3.8 py3.9 py3.10 py3.11 py3.12 py3.13 py3.11deb \
    ruby php java node
echo "# $(nproc) CPUs, $ncycles cycle(s) of $cycle s at 99 Hz after one" \
    "of warm-up, load average $(cut -d' ' -f1-3 /proc/loadavg)," \
    "$(git -C "$src" rev-parse --short HEAD 2>/dev/null)"
printf "%-10s %9s %9s %8s %9s\n" runtime with_cpu_s without_s samples \
    us/sample
for rt in "$@"; do
	measure "$rt"
done

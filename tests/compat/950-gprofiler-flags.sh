#!/bin/sh
# Every flag use of gProfiler 1.57.1 (tests/compat/gprofiler-1.57.1-flags.txt)
# against `gprofiler -n`: accepted exactly where gProfiler's parser accepts
# it, from the command line, from the config file and from the GPROFILER_*
# environment; refused with exit 2 and a message naming the flag and what it
# takes where gProfiler's parser refuses it.  The cases are generated from
# the list: a flag added there is tested here.  Then realistic combinations
# (a DaemonSet's arguments, Dataproc's init action) and the conflicts.
. "$top_srcdir/tests/tap.sh"
[ "$(id -u)" -eq 0 ] || skip_all "needs root (config files must be root's)"
LIST="$top_srcdir/tests/compat/gprofiler-1.57.1-flags.txt"
[ -r "$LIST" ] || skip_all "no flag list"
tap_tmpdir
mkdir -p "$TMP/out"
: >"$TMP/empty.conf"
chmod 600 "$TMP/empty.conf"
echo '{"static": {"team": "sre"}, "application": {}}' >"$TMP/ext.json"
echo '{}' >"$TMP/events.json"
: >"$TMP/perfspect"
chmod 755 "$TMP/perfspect"
ALLOC_LINE='--mode allocation: no installed plugin profiles allocations'

# gp ARGS...: status in $rc, stderr in $TMP/err.  Upload flags need their
# companions, as in gProfiler.
gp() {
	"$GP_BIN" -n --plugin-dir "$GP_PLUGIN_DIR" -o "$TMP/out" "$@" \
	    >"$TMP/outp" 2>"$TMP/err"
	rc=$?
}
# gp_env VAR=VALUE ARGS...: the same with one variable set.
gp_env() {
	gp_var=$1
	shift
	env "$gp_var" "$GP_BIN" -n --plugin-dir "$GP_PLUGIN_DIR" \
	    -o "$TMP/out" "$@" >"$TMP/outp" 2>"$TMP/err"
	rc=$?
}
# accepted: gProfiler's parser takes it.  Here that is exit 0, or, for
# allocation mode, exit 1 with the one line saying what is missing (not a
# usage error: gProfiler also fails only after parsing without Java).
accepted() {
	[ "$rc" -eq 0 ] && return 0
	[ "$rc" -eq 1 ] && grep -q -- "$ALLOC_LINE" "$TMP/err" && return 0
	diag "exit $rc: $(head -c 300 "$TMP/err")"
	return 1
}
# refused NAME: exit 2, one line naming the flag.
refused() {
	if [ "$rc" -ne 2 ]; then
		diag "exit $rc (want 2): $(head -c 300 "$TMP/err")"
		return 1
	fi
	grep -q -- "$1" "$TMP/err" && return 0
	diag "message does not name $1: $(head -c 300 "$TMP/err")"
	return 1
}

# What a flag needs around it to be valid in gProfiler's parser.
companions() {
	case $1 in
	upload-results|enable-heartbeat-server)
		echo "-u --token t --service-name s" ;;
	alloc-interval) echo "--mode allocation" ;;
	*) echo "" ;;
	esac
}

# Valid values of a flag (one per line); "" for a flag without a value.
valid_values() {
	name=$1 kind=$2
	case $name in
	output-dir) echo "$TMP/out"; return ;;
	config) echo "$TMP/empty.conf"; return ;;
	pid-file) echo "$TMP/pid"; return ;;
	log-file) echo "$TMP/log"; return ;;
	heartbeat-file) echo "$TMP/hb"; return ;;
	external-metadata) echo "$TMP/ext.json"; return ;;
	hw-events-file) echo "$TMP/events.json"; return ;;
	perfspect-path) echo "$TMP/perfspect"; return ;;
	server-host|api-server|glogger-server)
		echo "http://127.0.0.1:9"; return ;;
	controller-pid) echo "$$"; return ;;
	perf-dwarf-stack-size) echo 4096; echo 65528; return ;;
	log-rotate-max-size) echo 1048576; return ;;
	perf-event) echo cpu-clock; return ;;
	# gProfiler takes any positive period; here one that asks the
	# default event for over 1000 samples a second per CPU is refused
	# (docs/COMPAT.md; checked below).
	perf-event-period) echo 1000000; echo 30000000; return ;;
	app-id-args-filter) echo '.*Xmx.*'; return ;;
	pids|python-pyspy-process) echo 1; echo 1,2; return ;;
	esac
	case $kind in
	flag) echo "" ;;
	optval:*) echo ""; echo "$3" ;;
	str) echo "value" ;;
	int) echo 7 ;;
	posint) echo 1; echo 30 ;;
	nonneg) echo 0; echo 30 ;;
	range:*)
		lo=$(echo "$kind" | cut -d: -f2)
		hi=$(echo "$kind" | cut -d: -f3)
		echo "$lo"; echo $((hi - 1)) ;;
	choice:*) echo "${kind#choice:}" | tr '|' '\n' ;;
	list:*)
		echo "${kind#list:}" | tr '|' '\n'
		echo "${kind#list:}" | tr '|' ',' ;;
	pids) echo 1,2 ;;
	size) echo 2mb; echo 100kb ;;
	esac
}

# Values gProfiler's parser refuses.
invalid_values() {
	case $2 in
	int) echo abc ;;
	posint) echo 0; echo -3; echo abc ;;
	nonneg) echo -1; echo abc ;;
	range:*)
		lo=$(echo "$2" | cut -d: -f2)
		hi=$(echo "$2" | cut -d: -f3)
		echo $((lo - 1)); echo "$hi" ;;
	choice:*) echo bogus ;;
	list:*) echo bogus; echo "${2#list:}" | sed 's/|.*/,bogus/' ;;
	pids) echo x,1 ;;
	esac
}

envname() { echo "GPROFILER_$1" | tr 'a-z-' 'A-Z_'; }

grep '^--' "$LIST" | while IFS='	' read -r flag short kind dflt src; do
	name=${flag#--}
	comp=$(companions "$name")
	valid_values "$name" "$kind" "$dflt" >"$TMP/valid"
	while IFS= read -r v; do
		# The command line, long and short.
		if [ -z "$v" ]; then
			gp $comp "$flag"
		else
			gp $comp "$flag" "$v"
		fi
		accepted; ok $? "CLI: $flag${v:+ $v}"
		if [ "$short" != "-" ]; then
			if [ -z "$v" ]; then gp $comp "$short"
			else gp $comp "$short" "$v"; fi
			accepted; ok $? "CLI: $short${v:+ $v}"
		fi
		[ "$name" = config ] && continue	# not a config key
		# The config file (gprofiler.conf or gProfiler's config.ini).
		printf '%s = %s\n' "$name" "${v:-true}" >"$TMP/c.conf"
		chmod 600 "$TMP/c.conf"
		gp $comp --config "$TMP/c.conf"
		accepted; ok $? "config file: $name = ${v:-true}"
		# The environment.
		gp_env "$(envname "$name")=${v:-true}" $comp
		accepted; ok $? "environment: $(envname "$name")=${v:-true}"
	done <"$TMP/valid"
	invalid_values "$name" "$kind" >"$TMP/invalid"
	while IFS= read -r v; do
		gp $comp "$flag" "$v"
		refused "$flag"; ok $? "CLI refuses $flag $v (exit 2, names it)"
		printf '%s = %s\n' "$name" "$v" >"$TMP/c.conf"
		chmod 600 "$TMP/c.conf"
		gp $comp --config "$TMP/c.conf"
		refused "$name"; ok $? "config file refuses $name = $v"
		gp_env "$(envname "$name")=$v" $comp
		refused "$name"; ok $? "environment refuses $(envname "$name")=$v"
	done <"$TMP/invalid"
	# A flag without a value: the environment takes only true/false.
	if [ "$kind" = flag ]; then
		gp_env "$(envname "$name")=maybe" $comp
		refused "$(envname "$name")"
		ok $? "environment refuses $(envname "$name")=maybe"
	fi
done >"$TMP/tap"
# The loop ran in a subshell: carry its results over.
while IFS= read -r line; do
	case $line in
	"ok "*) ok 0 "${line#ok * - }" ;;
	"not ok "*) ok 1 "${line#not ok * - }" ;;
	*) echo "$line" ;;
	esac
done <"$TMP/tap"
n=$(grep -c '^--' "$LIST")
[ "$n" -ge 97 ]; ok $? "the list holds every flag of 1.57.1 ($n long flags)"

# Realistic combinations.
gp -c -u --token t --service-name s --server-host http://127.0.0.1:9 \
    --perf-mode fp --no-java --python-mode pyspy --disable-pidns-check \
    --dont-send-logs --no-ruby --no-php --no-dotnet --no-nodejs
accepted; ok $? "a DaemonSet's arguments (gProfiler's README)"
gp -cu --token t --service-name s --collect-spark-metrics \
    --spark-sample-period 60 --java-collect-spark-app-name-as-appid
accepted; ok $? "Dataproc init action's arguments"
gp --perf-mode smart -f 99 --perf-dwarf-stack-size 16384 \
    --max-processes-runtime-profiler 50 --skip-system-profilers-above 300 \
    --python-skip-pyperf-profiler-above 50 --perf-use-cgroups \
    --perf-max-cgroups 30 --perf-max-docker-containers 5
accepted; ok $? "the memory-optimization guide's busy-host arguments"
gp --java-async-profiler-mode itimer --java-safemode --java-line-numbers \
    line-of-function --java-collect-jvm-flags --java-jattach-timeout 10
accepted; ok $? "bare optional-value flags (--java-safemode, --java-collect-jvm-flags)"

# gProfiler's cross-flag rules, one line naming both flags.
gp --nodejs-mode perf --perf-mode dwarf
refused "--nodejs-mode" && grep -q -- "--perf-mode" "$TMP/err"
ok $? "--nodejs-mode perf with --perf-mode dwarf: refused, both named"
gp --nodejs-mode attach-maps --perf-mode smart
accepted; ok $? "--nodejs-mode attach-maps with --perf-mode smart"
gp --profile-spawned-processes --pids 1
refused "--pids" && grep -q -- "profile-spawned-processes" "$TMP/err"
ok $? "--profile-spawned-processes with --pids: refused, both named"
gp --alloc-interval 1mb
refused "--alloc-interval"; ok $? "--alloc-interval outside allocation mode"
gp --mode allocation -f 11
refused "profiling-frequency"; ok $? "-f in allocation mode"
gp --perf-dwarf-stack-size 65529
refused "perf-dwarf-stack-size"; ok $? "--perf-dwarf-stack-size above 65528"
# This agent's own limit (docs/SECURITY.md): gProfiler would sample the
# default event at every one of its counts.
gp --perf-event-period 1
refused "perf-event-period"; ok $? "--perf-event-period 1: over 1000 samples/s/CPU"
gp --perf-mode dwarf -f 101
refused "100"; ok $? "-f above 100 with --perf-mode dwarf"
gp -u --service-name s
refused "token"; ok $? "-u without --token"
gp --mode gpu --java-line-numbers none
[ "$rc" -eq 2 ] && grep -q -- "java-line-numbers" "$TMP/err" &&
    grep -q "gpu" "$TMP/err"
ok $? "--mode gpu with a Java flag: one line naming both"
gp --mode gpu --perf-event cycles
[ "$rc" -eq 2 ] && grep -q -- "perf-event" "$TMP/err"
ok $? "--mode gpu with --perf-event: refused"

# Allocation mode: one clear line, exit 1, nothing else suggested.
gp --mode allocation --alloc-interval 1mb
[ "$rc" -eq 1 ] && grep -q -- "$ALLOC_LINE" "$TMP/err" &&
    ! grep -q -- "--perf-mode disabled" "$TMP/err"
ok $? "--mode allocation: exit 1, one line naming what is missing"
[ "$(grep -c . "$TMP/err")" -eq 1 ]; ok $? "... and only that line"

# Flags without an effect here are named once, with the reason.
gp --java-line-numbers line-of-function --dotnet-mode dotnet-trace \
    --perf-no-memory-restart --collect-spark-metrics --no-php
[ "$rc" -eq 0 ]; ok $? "inert flags accepted"
[ "$(grep -c 'accepted for gProfiler compatibility, no effect here' \
    "$TMP/err")" -eq 1 ]; ok $? "one start-up line names them"
line=$(grep 'accepted for gProfiler compatibility' "$TMP/err")
for f in java-line-numbers dotnet-mode perf-no-memory-restart \
    collect-spark-metrics
do
	echo "$line" | grep -q -- "--$f" ; ok $? "... names --$f with its reason"
done
echo "$line" | grep -q -- "--php-mode"
ok $(( ! $? )) "... but not --no-php (disabling PHP is what it does here too)"
gp --ruby-mode rbspy
[ "$rc" -eq 0 ] && ! grep -q 'accepted for gProfiler compatibility' \
    "$TMP/err"
ok $? "--ruby-mode rbspy is not named as inert (the ruby plugin does it)"
gp --perf-use-cgroups --perf-max-cgroups 3 --perf-max-docker-containers 1
[ "$rc" -eq 0 ] && ! grep -q 'accepted for gProfiler compatibility' \
    "$TMP/err"
ok $? "--perf-use-cgroups and its limits are not named as inert (perf does them)"
gp --dotnet-mode disabled --java-line-numbers none
! grep -q 'accepted for gProfiler compatibility' "$TMP/err"
ok $? "no line when every such flag is at its inert value"
done_testing

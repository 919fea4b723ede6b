#!/bin/sh
# PHP plugin on a real php-fpm (Debian 12's php8.2-fpm, run in the
# foreground on a private socket): one worker busy in fpmHot() for a
# request sent over FastCGI (tests/workloads/fcgi_get.py), profiled with
# --php-mode phpspy and gProfiler's default --php-proc-filter (php-fpm).
# The worker's stacks are "fpmHot /path:N_[php]" under "<main>" and its
# comm; the idle master gives none and no error (it is examined only if
# sampled); a filter that matches
# nothing gives no PHP frames.
. "$top_srcdir/tests/tap.sh"
[ "$(id -u)" -eq 0 ] || skip_all "needs root"
[ -x "$GP_BIN" ] || skip_all "no daemon"
fpm=$(ls /usr/sbin/php-fpm* 2>/dev/null | head -1)
[ -n "$fpm" ] || skip_all "no php-fpm (apt-get install php-fpm)"
tap_tmpdir
wl=$(realpath "$top_srcdir/tests/workloads/php_fpm_hot.php")
line=$(grep -n '^function fpmHot' "$wl" | cut -d: -f1)
comm=$(basename "$fpm" | cut -c1-15)

cat >"$TMP/fpm.conf" <<EOC
[global]
error_log = $TMP/fpm.err
daemonize = no
pid = $TMP/fpm.pid
[www]
listen = $TMP/sock
pm = static
pm.max_children = 1
EOC
"$fpm" -R -F -y "$TMP/fpm.conf" >"$TMP/fpm.out" 2>&1 &
master=$!
trap 'kill $master $req 2>/dev/null; rm -rf "$TMP"' EXIT
i=0
while [ ! -S "$TMP/sock" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
[ -S "$TMP/sock" ]
ok $? "php-fpm listening"

profile() {
	out=$1; shift
	mkdir -p "$out"
	GPROFILER_LOCK_NAME="gptest-phpfpm-$$" "$GP_BIN" --plugin-dir \
	    "$GP_PLUGIN_DIR" -o "$out" -d "${D:-3}" -f 50 --no-flamegraph -v \
	    --php-mode phpspy "$@" >"$out/log" 2>&1
}

"$PYTHON3" "$top_srcdir/tests/workloads/fcgi_get.py" "$TMP/sock" "$wl" \
    s=15 >"$TMP/req.out" 2>&1 &
req=$!
# Profiled once the worker runs the request (its CPU time grows), for 5 s:
# on a loaded host the attach (php-fpm's symbols, read a slice a turn)
# takes a share of the cycle.
worker=
i=0
while [ $i -lt 50 ]; do
	worker=$(ps -o pid= --ppid "$master" | awk 'NR == 1 { print $1 }')
	[ -n "$worker" ] && [ "$(ps -o times= -p "$worker" | tr -d ' ')" -ge 1 ] && break
	sleep 0.1; i=$((i + 1))
done
D=5 profile "$TMP/on"
ok $? "daemon ran one cycle"
col=$(ls "$TMP"/on/profile_*.col 2>/dev/null | head -1)
[ -n "$col" ]
ok $? "a profile was written"
n=$(grep "^[0-9]*;;$comm;<main> $wl:[0-9]*_\[php\];fpmHot $wl:${line}_\[php\] " \
    "$col" | awk '{ s += $NF } END { print s + 0 }')
diag "fpmHot: $n samples in the worker"
[ "$n" -ge 50 ] || diag "$(grep -a "pid $worker\b" "$TMP/on/log" | head -5)"
[ "$n" -ge 50 ]
ok $? "worker frames \"fpmHot $wl:${line}_[php]\" under <main> and $comm"
# The master runs no PHP code: every PHP stack is the request's.
grep '_\[php\]' "$col" | grep -v ";<main> $wl:[0-9]*_\[php\];fpmHot " |
    sed 's/^/# other PHP stack: /' | cut -c1-300 >"$TMP/other"
cat "$TMP/other"
[ ! -s "$TMP/other" ]
ok $? "every PHP stack is the request's: the idle master gives none"
# The whole host is profiled: a test beside this one may run a PHP process
# the plugin must refuse (320's hostile "php-fpm" mapping); this test's own
# are named $comm.
grep -a 'Profiling error\|Profiling skipped' "$col" | sed 's/^/# refused: /' |
    cut -c1-300
! grep -aq "^[0-9]*;[^;]*;$comm;\(appid: [^;]*;\)\{0,1\}\[Profiling \(error\|skipped\)" "$col"
ok $? "no $comm process reported as an error or skipped"
# Processes are found from perf's samples (ABI 1.4): the busy worker is,
# the idle master only if it happened to be sampled (no error either way).
worker=$(ps -o pid= --ppid "$master" | awk 'NR == 1 { print $1 }')
[ -n "$worker" ] &&
    grep -q "pid $worker: PHP 8\.[0-9]*\.[0-9]* in $fpm" "$TMP/on/log"
ok $? "the worker was attached (default filter php-fpm)"

profile "$TMP/none" --php-proc-filter '^nomatch$'
ok $? "daemon ran with a filter matching nothing"
col=$(ls "$TMP"/none/profile_*.col 2>/dev/null | head -1)
[ -n "$col" ] && ! grep -q '_\[php\]' "$col"
ok $? "no PHP frames when the filter matches no process"
done_testing

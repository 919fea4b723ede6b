#!/bin/bash
# What idle interpreters cost the agent's memory: an agent on 1 s cycles
# (the soak test's settings), then N processes of one runtime (python,
# ruby or php) busy for 1.5 s (sampled, attached) and asleep after; the
# agent's anonymous memory (RssAnon) beyond its symbol tables before
# them, with them, and after they exit.
#
# usage: unshare -n bench/idle_runtime.sh BUILDDIR [N] [RUNTIME]  (as root)
set -u
B=$(cd "${1:?usage: idle_runtime.sh BUILDDIR [N] [RUNTIME]}" && pwd)
n=${2:-20}
rt=${3:-python}
case $rt in
python) cmd=(python3 -c '
import json, time
end = time.time() + 1.5
while time.time() < end:
    json.dumps({"a": [1, 2, 3]})
time.sleep(60)') ;;
ruby) cmd=(ruby -e '
e = Time.now + 1.5
[1, 2, 3].to_s while Time.now < e
sleep 60') ;;
# php-fpm is the default filter: these are the CLI's
php) cmd=(php -r '
$e = microtime(true) + 1.5;
while (microtime(true) < $e) json_encode([1, 2, 3]);
sleep(60);') ;;
*) echo "RUNTIME: python, ruby or php" >&2; exit 2 ;;
esac
out=$(mktemp -d /tmp/idle_runtime.XXXXXX)
trap 'kill $a $pids 2>/dev/null; rm -rf "$out"' EXIT
GPROFILER_LOCK_NAME=gpbench-idle-$$ "$B/gprofiler" --plugin-dir \
    "$B/tests/plugindir" -c -d 1 -f 199 -o "$out" --rotating-output \
    --no-flamegraph --php-mode phpspy --php-proc-filter '^php$' -v >"$out/log" 2>&1 &
a=$!
# RssAnon less the last cycle's symbol tables, in kB
beyond() {
	r=$(awk '/^RssAnon/ {print $2}' /proc/$a/status)
	t=$(grep 'perf: symbol tables' "$out/log" | tail -1 |
	    sed 's/.*tables: [0-9]*, \([0-9]*\) KiB.*/\1/')
	echo $((r - ${t:-0}))
}
sleep 10	# its tables loaded: the host's processes sampled
b0=$(beyond)
pids=
for i in $(seq 1 "$n"); do
	"${cmd[@]}" &
	pids="$pids $!"
done
sleep 12
b1=$(beyond)
# what the plugin said of them at its last snapshot
said=$(grep "$rt: snapshot:" "$out/log" | tail -1 | sed 's/.*snapshot: //')
kill $pids 2>/dev/null
pids=
sleep 3
b2=$(beyond)
echo "anonymous memory beyond the symbol tables: $b0 kB before, $b1 kB" \
    "with $n idle $rt processes attached ($(( (b1 - b0) / n )) kB each)," \
    "$b2 kB after they exit"
echo "$rt's last snapshot with them: $said"

#!/bin/bash
# What idle interpreters cost the agent's memory: an agent on 1 s cycles
# (the soak test's settings), then N Python processes busy for 1.5 s
# (sampled, attached) and asleep after; the agent's anonymous memory
# (RssAnon) beyond its symbol tables before them, with them, and after
# they exit.
#
# usage: unshare -n bench/idle_python.sh BUILDDIR [N]   (as root)
set -u
B=$(cd "${1:?usage: idle_python.sh BUILDDIR [N]}" && pwd)
n=${2:-20}
out=$(mktemp -d /tmp/idle_python.XXXXXX)
trap 'kill $a $pids 2>/dev/null; rm -rf "$out"' EXIT
GPROFILER_LOCK_NAME=gpbench-idle-$$ "$B/gprofiler" --plugin-dir \
    "$B/tests/plugindir" -c -d 1 -f 199 -o "$out" --rotating-output \
    --no-flamegraph -v >"$out/log" 2>&1 &
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
	python3 -c '
import json, time
end = time.time() + 1.5
while time.time() < end:
    json.dumps({"a": [1, 2, 3]})
time.sleep(60)' &
	pids="$pids $!"
done
sleep 12
b1=$(beyond)
kill $pids 2>/dev/null
pids=
sleep 3
b2=$(beyond)
echo "anonymous memory beyond the symbol tables: $b0 kB before, $b1 kB" \
    "with $n idle Python processes attached ($(( (b1 - b0) / n )) kB each)," \
    "$b2 kB after they exit"

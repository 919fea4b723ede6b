#!/bin/sh
# The fork+exec workload: a shell loop starting RATE short busy programs a
# second (short_exec, MS milliseconds of CPU each) for SECONDS, without
# waiting for them, like a build or CI script does.
#
#	exec_loop.sh SHORT_EXEC [RATE] [SECONDS] [MS]	(60 10 50)
prog=$1
rate=${2:-60}
secs=${3:-10}
ms=${4:-50}
gap=$(awk -v r="$rate" 'BEGIN { printf "%.4f", 1 / r }')
n=$((rate * secs))
i=0
while [ $i -lt $n ]; do
	"$prog" "$ms" &
	sleep "$gap"
	i=$((i + 1))
done
wait

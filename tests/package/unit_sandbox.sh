#!/bin/sh
# Run a command the way systemd runs the unit's processes, systemd not
# being PID 1 here: the unit's Environment=, its directories (created
# 0700, as systemd does), ProtectSystem=strict (every mount read-only but
# /proc, /sys, /dev and those directories), its capability bounding set
# and no new privileges.  The command keeps this script's PID (each step
# execs the next), so the caller can signal it.
#   tests/package/unit_sandbox.sh UNIT-FILE COMMAND [ARG...]
# or, for the caller, a setting's values with systemd's specifiers expanded:
#   tests/package/unit_sandbox.sh UNIT-FILE --print KEY
unit_spec() {
	sed -n "s/^$2=//p" "$1" |
	    sed 's|%S|/var/lib|g; s|%t|/run|g; s|%L|/var/log|g'
}

unit=$1; shift
if [ "$1" = --print ]; then
	unit_spec "$unit" "$2"
	exit
fi
caps=$(unit_spec "$unit" CapabilityBoundingSet | tr ' ' '\n' |
    sed 's/^CAP_//' | tr 'A-Z' 'a-z' | sed 's/^/+/' | paste -sd, -)
dirs=$(awk -F= '$1 ~ /^(State|Logs|Runtime)Directory$/ {
	base = $1 == "StateDirectory" ? "/var/lib/" : \
	    $1 == "LogsDirectory" ? "/var/log/" : "/run/"
	n = split($2, d, " "); for (i = 1; i <= n; i++) print base d[i] }' "$unit" |
    paste -sd' ' -)
# shellcheck disable=SC2086
install -d -m 0700 $dirs || exit 125
# shellcheck disable=SC2046,SC2016
exec env $(unit_spec "$unit" Environment) unshare -m --propagation private sh -c '
	caps=$1 dirs=$2; shift 2
	for d in $dirs; do mount --bind "$d" "$d" || exit 125; done
	awk "{ print \$5 }" /proc/self/mountinfo | while read -r mp; do
		case " $dirs " in *" $mp "*) continue ;; esac
		case $mp in /proc|/proc/*|/sys|/sys/*|/dev|/dev/*) continue ;; esac
		mount -o remount,bind,ro "$mp" 2>/dev/null
	done
	exec setpriv --bounding-set=-all,$caps --inh-caps=-all --no-new-privs \
	    "$@"' sh "$caps" "$dirs" "$@"

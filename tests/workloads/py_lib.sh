# Shell helpers for the Python plugin's integration tests (sourced).
# py_interps: "label path" lines for every CPython 3.8-3.13 here.
py_interps() {
	r=${PYENV_ROOT:-$HOME/.pyenv}
	for v in 3.8:3.8.18 3.9:3.9.18 3.10:3.10.13 3.11:3.11.7 3.12:3.12.1 \
	    3.13:3.13.0; do
		m=${v%%:*}; f=${v#*:}
		[ -x "$r/versions/$f/bin/python$m" ] &&
		    echo "$m $r/versions/$f/bin/python$m"
	done
	[ -x /usr/bin/python3.11 ] && echo "3.11deb /usr/bin/python3.11"
	return 0
}
# py_wait_ready FILE: until the workload printed "ready" (10 s at most).
py_wait_ready() {
	i=0
	while [ $i -lt 100 ]; do
		grep -q ready "$1" 2>/dev/null && return 0
		sleep 0.1; i=$((i + 1))
	done
	return 1
}
# py_profile OUTDIR SECONDS [args]: one cycle of the daemon.
py_profile() {
	out=$1; secs=$2; shift 2
	mkdir -p "$out"
	# Own lock name: other tests may run an agent at the same time.
	GPROFILER_LOCK_NAME="gptest-python-$$" "$GP_BIN" --plugin-dir "$GP_PLUGIN_DIR" -o "$out" -d "$secs" \
	    --no-flamegraph "$@" >"$out/log" 2>&1
}

# What the attach-maps tests need, said once: source after tests/tap.sh.
#   node_attach_require TOOL...   node 20 (V8 11, the writer's checked
#                                 layout), the built helper, and the tools
#                                 named; sets NODE.
#   node_wait_usr1 PID...         until each catches SIGUSR1 (10 s at most
#                                 each): node sets its inspector's handler
#                                 up while it starts, slower on a loaded
#                                 host; the fakes are waited for alike.
#   node_py_fake                  after tap_tmpdir: $TMP/py/node, a copy of
#                                 Debian's python3 that nobody can run (as
#                                 PYTHONHOME=/usr $TMP/py/node), for the
#                                 fakes of node_attack.py.
node_attach_require() {
	NODE=$(command -v node) || skip_all "node missing"
	for t in "$@"; do
		command -v "$t" >/dev/null || skip_all "$t missing"
	done
	case $("$NODE" -p 'process.versions.v8.split(".")[0]') in
	11) ;;
	*) skip_all "node $("$NODE" -v): the perf map writer is checked on V8 11 (node 20) only" ;;
	esac
	[ -x "$GP_PLUGIN_DIR/nodejs/nodejs-attach" ] ||
	    skip_all "nodejs plugin not built"
}

node_wait_usr1() {
	for _p in "$@"; do
		_i=0
		while [ $_i -lt 100 ] && ! awk '$1 == "SigCgt:" {
		    exit !(substr($2, length($2) - 2, 1) ~ /[2367abefABEF]/) }' \
		    "/proc/$_p/status" 2>/dev/null; do
			sleep 0.1; _i=$((_i + 1))
		done
	done
}

node_py_fake() {
	_py=$(readlink -f /usr/bin/python3)
	[ -x "$_py" ] || skip_all "Debian's python3 missing"
	mkdir -p "$TMP/py"
	cp "$_py" "$TMP/py/node"
	chmod 755 "$TMP" "$TMP/py" "$TMP/py/node"
}

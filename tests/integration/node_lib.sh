# What the attach-maps tests need, said once: source after tests/tap.sh.
#   node_attach_require TOOL...   node 20 (V8 11, the writer's checked
#                                 layout), the built helper, and the tools
#                                 named; sets NODE.
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

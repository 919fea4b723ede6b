# Helpers for the Java and Node.js integration tests (7x-java-*, 7x-node-*):
# source after tests/tap.sh.  jv_profile runs the real daemon for one cycle
# over the given PIDs; jv_check_py turns "PASS/FAIL what" lines into TAP.
jv_require() {
	[ "$(id -u)" -eq 0 ] || skip_all "needs root for BPF"
	[ -d /sys/kernel/btf ] || skip_all "kernel without BTF"
	[ -x "$GP_BIN" ] || skip_all "daemon not built"
	[ -e "$GP_PLUGIN_DIR/perf.so" ] || skip_all "perf plugin not built"
}

# jv_compile: build the Java workload into $TMP/classes.
jv_compile() {
	command -v javac >/dev/null || skip_all "javac missing (openjdk-17-jdk-headless)"
	mkdir -p "$TMP/classes"
	javac -d "$TMP/classes" "$top_srcdir/tests/workloads/java/HotLoop.java" \
	    >"$TMP/javac.log" 2>&1 || { cat "$TMP/javac.log"; exit 99; }
}

# jv_profile OUTDIR SECONDS PID[,PID...] [daemon args...]
jv_profile() {
	out=$1; secs=$2; pids=$3; shift 3
	mkdir -p "$out"
	GPROFILER_LOCK_NAME=gptest-java-$$ "$GP_BIN" --plugin-dir \
	    "$GP_PLUGIN_DIR" -o "$out" -d "$secs" --no-flamegraph \
	    --pids "$pids" "$@" >"$out/daemon.log" 2>&1
}

jv_check_py() {
	"$PYTHON3" "$@" >"$TMP/py.out" 2>&1
	rc=$?
	while IFS= read -r line; do
		case $line in
		PASS\ *) ok 0 "${line#PASS }" ;;
		FAIL\ *) ok 1 "${line#FAIL }" ;;
		*) diag "$line" ;;
		esac
	done <"$TMP/py.out"
	ok $rc "checker ran"
}

# jv_wait_jit PID: give the JIT a moment (the workload is hot from start).
jv_wait_jit() {
	i=0
	while [ $i -lt 40 ] && ! grep -q libjvm "/proc/$1/maps" 2>/dev/null; do
		sleep 0.05; i=$((i + 1))
	done
	sleep 1.5
}

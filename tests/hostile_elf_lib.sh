# What the hostile-ELF tests (30-33) share: a directory nobody owns, a
# hostile ELF written there by nobody (tests/workloads/hostile_elf.py),
# and a process of nobody's that maps it under a runtime library's name
# (tests/workloads/elf_mapper).  Source after tests/tap.sh and
# tests/attack_lib.sh.
#
#   helf_setup                      skip unless root, daemon, setpriv; TMP
#   helf_write NAME NSYMS MB        $TMP/lib/NAME, nobody's
#   helf_map NAME COMM SECS         a mapper as nobody (MAPPER_PIDS)

helf_setup() {
	[ "$(id -u)" -eq 0 ] || skip_all "needs root"
	[ -x "$GP_BIN" ] || skip_all "no daemon"
	command -v setpriv >/dev/null || skip_all "setpriv(1) missing"
	HELF_MAPPER=$top_builddir/tests/workloads/elf_mapper
	[ -x "$HELF_MAPPER" ] || skip_all "no tests/workloads/elf_mapper"
	tap_tmpdir
	chmod 0755 "$TMP"
	mkdir -p "$TMP/lib"
	chown 65534:65534 "$TMP/lib"
	MAPPER_PIDS=
	trap 'kill $MAPPER_PIDS 2>/dev/null; [ -n "$AGENT_PID" ] &&
	    kill -KILL $AGENT_PID 2>/dev/null; rm -rf "$TMP"' EXIT
}

helf_nobody() {
	setpriv --reuid=65534 --regid=65534 --clear-groups "$@"
}

# Written by root, given to nobody (the interpreter the tests run may
# be in a directory nobody cannot enter): the owner is what counts.
helf_write() {
	"${PYTHON3:-python3}" "$top_srcdir/tests/workloads/hostile_elf.py" \
	    "$TMP/lib/$1" "$2" "$3" && chown 65534:65534 "$TMP/lib/$1"
}

helf_map() {
	# setpriv itself in the background (not a function: a subshell), so
	# that $! is the mapper the trap ends
	# each mapper its own output: a second one must not share the
	# first's file (the first still holds it open)
	HELF_N=$((${HELF_N:-0} + 1))
	_out=$TMP/ready.$1.$HELF_N
	setpriv --reuid=65534 --regid=65534 --clear-groups "$HELF_MAPPER" \
	    "$TMP/lib/$1" "$2" "$3" >"$_out" 2>&1 &
	_m=$!
	MAPPER_PIDS="$MAPPER_PIDS $_m"
	_i=0
	while ! grep -q '^ready' "$_out" 2>/dev/null && [ $_i -lt 50 ]; do
		sleep 0.1; _i=$((_i + 1))
	done
	grep -q '^ready' "$_out" && return 0
	# why not: what it said, and whether it still runs
	diag "mapper $_m of $1 not ready in 5 s: $(kill -0 "$_m" 2>/dev/null &&
	    echo running || echo exited); its output: $(head -c 300 "$_out" |
	    tr '\n' ' ')"
	return 1
}

# TAP helpers for shell integration tests: source this file.
#   ok COND-EXIT-STATUS "what"; skip_all "why"; done_testing
tap_n=0
tap_failed=0
ok() {
	tap_n=$((tap_n + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $tap_n - $2"
	else
		echo "not ok $tap_n - $2"
		tap_failed=$((tap_failed + 1))
	fi
}
# check "what" command args...: runs the command, ok if it exits 0.
check() {
	what=$1; shift
	"$@" >/dev/null 2>&1
	ok $? "$what"
}
diag() { echo "# $*"; }
skip_all() { echo "1..0 # SKIP $*"; exit 0; }
# skip_under_asan WHAT: a test whose checks are shares or timings of the
# uninstrumented agent (ASan slows the agent, not the workload, so they
# would measure ASan); its code paths run under ASan in other tests.
skip_under_asan() {
	[ -z "${GP_ASAN:-}" ] || skip_all "under ASan: $* measures timing"
}
done_testing() { echo "1..$tap_n"; [ "$tap_failed" -eq 0 ]; }
# A private temporary directory removed at exit.
tap_tmpdir() {
	TMP=$(mktemp -d /tmp/gptest.XXXXXX) || exit 99
	trap 'rm -rf "$TMP"' EXIT
}
# skip "what" "why": one check not run here.
skip() {
	tap_n=$((tap_n + 1))
	echo "ok $tap_n - $1 # SKIP $2"
}
# Whether the daemon is an AddressSanitizer build (memory figures are
# meaningless there: shadow memory and quarantine).
asan_build() { ldd "$GP_BIN" 2>/dev/null | grep -q libasan; }
# wait_line FILE REGEX [SECONDS]: until a line of FILE matches (30 s at
# most); false if none did.
wait_line() {
	_w=0
	while ! grep -q "$2" "$1" 2>/dev/null &&
	    [ $_w -lt $((${3:-30} * 10)) ]; do
		sleep 0.1; _w=$((_w + 1))
	done
	grep -q "$2" "$1" 2>/dev/null
}
# wait_gone PID SECONDS: until the process is gone (0), or still there
# after SECONDS (1).
wait_gone() {
	_g=0
	while kill -0 "$1" 2>/dev/null && [ $_g -lt $(($2 * 10)) ]; do
		sleep 0.1; _g=$((_g + 1))
	done
	! kill -0 "$1" 2>/dev/null
}
# sanitizer_report LOG: a sanitizer's report in an agent's log, as
# diagnostics (from its first line: a leak report names the leak first);
# false when there is none.
sanitizer_report() {
	grep -q 'Sanitizer\|runtime error:' "$1" || return 1
	sed -n '/==[0-9]*==ERROR\|runtime error:\|Sanitizer/,$p' "$1" |
	    head -60 | sed 's/^/# /'
}

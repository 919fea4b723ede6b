# The TAP output of the tree's checks (scripts/check-*.sh), sourced:
#   ok WHAT, notok WHAT [DETAIL LINE...]; "1..$n" and "exit $fail" at the end.
# $top is the source tree (top_srcdir under make check).
top=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
n=0
fail=0

ok() {
	n=$((n + 1))
	echo "ok $n - $1"
}
notok() {
	n=$((n + 1))
	fail=1
	echo "not ok $n - $1"
	shift
	printf '%s\n' "$@" | sed 's/^/# /'
}

#!/bin/sh
# perf plugin, a stripped Go binary (go build -ldflags='-s -w') whose hot
# loop the compiler inlined: main.spin (a loop, small enough to inline)
# runs inside main.hotA (75% of the work) and, through main.mid (also
# inlined), inside main.hotB (25%).  The inlined frames come from
# .gopclntab's inline tree: main.main;main.hotA;main.spin and
# main.main;main.hotB;main.mid;main.spin, each within ±5 points of its
# share.  `go build -gcflags=-m` must say both calls were inlined (else the
# test would prove nothing).  Skipped without go.
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/tests/workloads/perf_lib.sh"
perf_require
command -v go >/dev/null 2>&1 || skip_all "no go toolchain (golang-go)"
tap_tmpdir

mkdir -p "$TMP/go"
cat >"$TMP/go/goinl.go" <<'GO'
package main

import (
	"os"
	"strconv"
	"time"
)

var sink uint64

// Small enough for the inliner (a loop is inlinable since Go 1.16).
func spin(n int) uint64 {
	x := sink
	for i := 0; i < n; i++ {
		x = x*6364136223846793005 + 1442695040888963407
	}
	return x
}

func mid(n int) uint64 { return spin(n) ^ 1 }

// A call after the loop gives hotA/hotB a frame (see 271-perf-go.sh).
//
//go:noinline
func record(x uint64) { sink = x }

//go:noinline
func hotA(n int) { record(spin(n)) }

//go:noinline
func hotB(n int) { record(mid(n)) }

func main() {
	secs, _ := strconv.Atoi(os.Args[1])
	end := time.Now().Add(time.Duration(secs) * time.Second)
	for time.Now().Before(end) {
		hotA(3000000)
		hotB(1000000)
	}
}
GO
GOCACHE=${GOCACHE:-$TMP/go/cache} GOPATH=$TMP/go/path GOTOOLCHAIN=local \
    GOPROXY=off GOFLAGS=-buildvcs=false \
    go build -gcflags=-m -ldflags='-s -w' -o "$TMP/go/goinl" \
    "$TMP/go/goinl.go" >"$TMP/go/build.log" 2>&1
ok $? "go build -ldflags='-s -w'" || { diag "$(cat "$TMP/go/build.log")"; done_testing; exit; }
grep -q 'inlining call to spin' "$TMP/go/build.log" &&
    grep -q 'inlining call to mid' "$TMP/go/build.log"
ok $? "the compiler inlined spin and mid" || diag "$(cat "$TMP/go/build.log")"

"$TMP/go/goinl" 300 &	# until killed (271-perf-go.sh says why)
hot=$!
perf_wait_exec $hot goinl
perf_profile "$TMP/out" 8 profiling-frequency=997 pids=$hot
ok $? "plugin ran one cycle"
perf_want "$TMP/out" $hot 997 500
kill $hot 2>/dev/null; wait

cat >"$TMP/check.py" <<'PY'
import os, sys
stacks = [l.rsplit(' ', 1) for l in open(sys.argv[1]) if l.strip()]
stacks = [sc for sc in stacks if sc[0].startswith('goinl;')]
def ok(c, what):
    print(("PASS " if c else "FAIL ") + what)
total = sum(int(c) for s, c in stacks)
print("%d samples" % total)
want = int(os.environ["PERF_WANT"])
ok(total >= want, "enough samples (%d, want %d) at 997 Hz" % (total, want))
share = {}
for s, c in stacks:
    user = [f for f in s.split(';')[1:] if not f.endswith('_[k]')]
    # the path from main.main down
    if 'main.main' in user:
        user = user[user.index('main.main'):]
    key = ';'.join(user[:4])
    share[key] = share.get(key, 0) + int(c)
for k, c in sorted(share.items(), key=lambda kv: -kv[1])[:5]:
    print("stack %s %d" % (k, c))
for path, want in (('main.main;main.hotA;main.spin', 75),
                   ('main.main;main.hotB;main.mid;main.spin', 25)):
    got = 100.0 * share.get(path, 0) / max(total, 1)
    print("%s %.1f%% (want %d%%)" % (path, got, want))
    ok(abs(got - want) <= 5, "%s share %.1f within 5 points of %d" % (path, got, want))
PY
perf_check_py "$TMP/check.py" "$TMP/out" "$TMP/out.md"
done_testing

# Helpers for the iaprof integration tests (sourced after tests/tap.sh).
FAKE="$top_builddir/tests/fakes/fake_iaprof"
[ -x "$FAKE" ] || skip_all "tests/fakes/fake_iaprof not built"
[ "$(id -u)" -eq 0 ] || skip_all "iaprof needs root"
export FAKE_IAPROF_LOG="$TMP/fake.log" FAKE_IAPROF_STATE="$TMP/fake.state"
# Children get a minimal environment: pass the fake its switches.
export GPROFILER_CHILD_ENV="FAKE_IAPROF_*"

# gp [args...]: the daemon in gpu mode with the fake, output in $TMP/out.
gp() {
	"$GP_BIN" --mode gpu --plugin-dir "$GP_PLUGIN_DIR" \
	    --iaprof-path "$FAKE" -o "$TMP/out" "$@"
}

# gp_bg [args...]: gp in the background; $! is the daemon itself (exec).
gp_bg() {
	(exec "$GP_BIN" --mode gpu --plugin-dir "$GP_PLUGIN_DIR" \
	    --iaprof-path "$FAKE" -o "$TMP/out" "$@") &
	gpid=$!
}

# check_model FILE RUN: every stack of the .col folds as the fake's model
# (tests/unit/iaprof_model.h, derived from docs/specs/iaprof.md section 5).
check_model() {
	"$PYTHON3" - "$1" "$2" <<'PY'
import sys
path, run = sys.argv[1], int(sys.argv[2])
s = "-r%d" % run if run > 1 else ""
st = "_start;__libc_start_main;main;run;zeCommandListAppendLaunchKernel" + s
k1 = "python3%s;%s;-;/src/matmul.cpp%s_[G];matmul_kernel(float*, float*, float*)%s_[G];" % (s, st, s, s)
k2 = "python3%s;%s;-;[unknown]_[G];reduce_sum%s_[G];" % (s, st, s)
k3 = "bench%s;-;/src/conv.cl%s_[G];conv2d|v2%s_[G];" % (s, s, s)
model = {
    k1 + "mad%s_[g];active_[g];0x1a0_[g]" % s: (1, 3),
    k1 + "mad%s_[g];dist_acc_[g];0x1a0_[g]" % s: (1, 1),
    k1 + "mad%s_[g];sbid_[g];0x1a0_[g]" % s: (1, 12),
    k1 + "send%s_[g];send_[g];0x1b0_[g]" % s: (1, 5),
    k1 + "send%s_[g];sbid_[g];0x1b0_[g]" % s: (1, 2),
    k2 + "mov%s_[g];active_[g];0x40_[g]" % s: (1, 1),
    k2 + "mov%s_[g];control_[g];0x40_[g]" % s: (1, 2),
    k2 + "mov%s_[g];tdr_[g];0x40_[g]" % s: (1, 1),
    k3 + "[failed decode]%s_[g];inst_fetch_[g];0x0_[g]" % s: (3, 4),
    k3 + "[failed decode]%s_[g];other_[g];0x0_[g]" % s: (3, 1),
    k3 + "[unknown]_[g];sync_[g];0x10_[g]": (3, 7),
}
got = {}
lines = open(path).read().split("\n")[1:]
for line in lines:
    stack, count = line.rsplit(" ", 1)
    # strip the host's prefix: app-metadata index and container frames
    parts = stack.split(";")
    key = ";".join(parts[2:])
    if key not in model:
        sys.exit("unexpected stack: " + line)
    got[key] = got.get(key, 0) + int(count)
blocks = {}
for key, (kern, per) in model.items():
    c = got.get(key, 0)
    if c % per:
        sys.exit("%s: %d not a multiple of %d" % (key, c, per))
    blocks.setdefault(kern, set()).add(c // per)
k = blocks[1]
if len(k) != 1 or len(blocks[3]) != 1:
    sys.exit("stacks of one kernel disagree: %s" % blocks)
k, k3 = k.pop(), blocks[3].pop()
if k < 1 or abs(2 * k3 - k) > 2:
    sys.exit("blocks %d, even blocks %d" % (k, k3))
print("# %d blocks" % k)
PY
}

# header_get FILE KEY: a metadata value from the .col header.
header_get() {
	head -1 "$1" | "$PYTHON3" -c 'import json,sys
h = json.loads(sys.stdin.read()[2:])
print(h["metadata"].get(sys.argv[1], h.get(sys.argv[1])))' "$2"
}

# zombies PID: how many children of PID are zombies.
zombies() {
	n=0 zp=$1
	for st in /proc/[0-9]*/stat; do
		f=$(sed 's/.*) //' "$st" 2>/dev/null) || continue
		# shellcheck disable=SC2086
		set -- $f
		[ "${1:-}" = Z ] && [ "${2:-}" = "$zp" ] && n=$((n + 1))
	done
	echo $n
}

# wait_for SECONDS CMD...: poll until CMD succeeds.
wait_for() {
	t=$(($1 * 10)); shift
	while [ $t -gt 0 ]; do
		"$@" >/dev/null 2>&1 && return 0
		sleep 0.1; t=$((t - 1))
	done
	return 1
}

# Helpers of the container integration tests (9x-container-*.sh): a rootfs
# holding one static busy-loop binary (nothing can be pulled here), images
# built from it for each runtime, and the runtimes themselves, started by
# container_runtimes.sh when they are not running.
# Needs: tap.sh sourced, tap_tmpdir called.

CT_RT="$top_srcdir/tests/integration/container_runtimes.sh"
CT_IMG=localhost/gp-busy:1
# The busy binary's name (its comm): one per test, so that a container
# another test left running cannot be mistaken for this one.
CT_BIN=${CT_BIN:-ct_busy}

# ct_runtime NAME: start it (if needed) or skip the whole test with why.
ct_runtime() {
	if ! why=$(sh "$CT_RT" start "$1" 2>&1); then
		skip_all "$1 cannot run on this machine: $(echo "$why" | tail -1)"
	fi
}

# The rootfs: /$CT_BIN spins in ct_hot() (or, with "pause", sleeps).
ct_rootfs() {
	[ -x "$TMP/rootfs/$CT_BIN" ] && return 0
	mkdir -p "$TMP/rootfs/tmp" "$TMP/rootfs/proc" "$TMP/rootfs/dev" \
	    "$TMP/rootfs/sys" "$TMP/rootfs/etc"
	cat >"$TMP/ct_busy.c" <<'C'
#include <string.h>
#include <unistd.h>
volatile unsigned long ct_sink;
__attribute__((noinline)) void ct_hot(void)
{
	for (unsigned long i = 0; i < 1000000; i++)
		ct_sink += i * i;
}
int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "pause") == 0)
		for (;;)
			pause();
	for (;;)
		ct_hot();
}
C
	${CC:-cc} -static -O1 -fno-omit-frame-pointer -o "$TMP/rootfs/$CT_BIN" \
	    "$TMP/ct_busy.c" || bail "cannot build a static binary (libc6-dev)"
	: >"$TMP/rootfs/etc/resolv.conf"
	: >"$TMP/rootfs/etc/hosts"
	: >"$TMP/rootfs/etc/hostname"
	tar -C "$TMP/rootfs" -cf "$TMP/rootfs.tar" .
}

# An OCI image layout tarball of the rootfs, named $CT_IMG (ctr images
# import); prints its path.
ct_oci_tar() {
	ct_rootfs
	d="$TMP/oci"
	rm -rf "$d"
	mkdir -p "$d/blobs/sha256"
	gzip -n -c "$TMP/rootfs.tar" >"$d/layer.tgz"
	diffid=$(sha256sum "$TMP/rootfs.tar" | cut -d' ' -f1)
	lsum=$(sha256sum "$d/layer.tgz" | cut -d' ' -f1)
	lsize=$(stat -c %s "$d/layer.tgz")
	mv "$d/layer.tgz" "$d/blobs/sha256/$lsum"
	printf '{"architecture":"amd64","os":"linux","config":{"Cmd":["/%s","pause"]},"rootfs":{"type":"layers","diff_ids":["sha256:%s"]}}' \
	    "$CT_BIN" "$diffid" >"$d/config.json"
	csum=$(sha256sum "$d/config.json" | cut -d' ' -f1)
	csize=$(stat -c %s "$d/config.json")
	mv "$d/config.json" "$d/blobs/sha256/$csum"
	printf '{"schemaVersion":2,"mediaType":"application/vnd.oci.image.manifest.v1+json","config":{"mediaType":"application/vnd.oci.image.config.v1+json","digest":"sha256:%s","size":%s},"layers":[{"mediaType":"application/vnd.oci.image.layer.v1.tar+gzip","digest":"sha256:%s","size":%s}]}' \
	    "$csum" "$csize" "$lsum" "$lsize" >"$d/manifest.json"
	msum=$(sha256sum "$d/manifest.json" | cut -d' ' -f1)
	msize=$(stat -c %s "$d/manifest.json")
	mv "$d/manifest.json" "$d/blobs/sha256/$msum"
	printf '{"schemaVersion":2,"manifests":[{"mediaType":"application/vnd.oci.image.manifest.v1+json","digest":"sha256:%s","size":%s,"annotations":{"io.containerd.image.name":"%s","org.opencontainers.image.ref.name":"1"}}]}' \
	    "$msum" "$msize" "$CT_IMG" >"$d/index.json"
	echo '{"imageLayoutVersion":"1.0.0"}' >"$d/oci-layout"
	tar -C "$d" -cf "$TMP/oci.tar" oci-layout index.json blobs
	echo "$TMP/oci.tar"
}

# ct_profile OUTDIR SECONDS [ARGS...]: one cycle of the daemon, perf only
# (these tests are about names, not about what the Python and Java
# plugins find in other processes on the machine).
ct_profile() {
	o=$1 secs=$2
	shift 2
	mkdir -p "$o"
	timeout -k 10 $((secs + 60)) "$GP_BIN" --plugin-dir "$GP_PLUGIN_DIR" \
	    -o "$o" -d "$secs" --no-flamegraph --python-mode disabled \
	    --java-mode disabled --log-file "$o/gprofiler.log" \
	    --pid-file "$o/pid" "$@" >"$o/stdout" 2>&1
}

# ct_check OUTDIR NAME: the $CT_BIN stacks carry NAME in their container
# frame, and the header lists it (NAME "": names are off).
ct_check() {
	"$PYTHON3" - "$1" "$2" "$CT_BIN" <<'PY'
import glob, json, sys
out, want, comm = sys.argv[1], sys.argv[2], sys.argv[3]
cols = sorted(glob.glob(out + "/profile_*.col"))
if not cols:
    print("no .col in " + out); sys.exit(1)
text = open(cols[-1], encoding="utf-8", errors="replace").read().split("\n")
hdr = json.loads(text[0][2:])
frames = {}
for l in text[1:]:
    if not l.strip():
        continue
    stack, n = l.rsplit(" ", 1)
    f = stack.split(";")
    # index;container;comm;...
    if len(f) > 2 and f[2] == comm:
        frames[f[1]] = frames.get(f[1], 0) + int(n)
print("%s samples by container frame: %r" % (comm, frames))
print("header containers: %r" % hdr.get("containers"))
if want:
    ok = want in frames and frames[want] >= 0.9 * sum(frames.values()) \
        and want in hdr.get("containers", []) \
        and hdr.get("container_names_enabled")
else:
    ok = list(frames) == [""] and hdr.get("containers") == [] \
        and not hdr.get("container_names_enabled")
sys.exit(0 if ok else 1)
PY
}

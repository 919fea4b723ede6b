#!/bin/bash
# The VM tier's arm64 build: this source tree cross-built for aarch64, only
# what the guest runs (the agent, its plugins, perf_busy, perf_busy_nofp,
# perf_syscalls).
#
#	tests/vm/arm64-build.sh BUILDDIR	(then: GP_VM_ARM64_BUILD=BUILDDIR tests/vm/run.sh)
#
# The sysroot (Debian 12's arm64 -dev packages and their dependencies,
# busybox-static and CPython 3.11 for the guest) is fetched from Debian's
# mirror with the tier's private apt configuration (tests/vm/apt.sh) and
# cached under GP_VM_CACHE (default /var/cache/gprofiler-vm) as the kernels
# are; the machine's apt and dpkg are not touched (no
# dpkg --add-architecture).  Needs gcc-aarch64-linux-gnu, and configure
# generated in the source tree (autogen.sh).  BUILDDIR/vm-sysroot names the
# sysroot for run.sh, which takes the guest's libraries from it; it is
# written last, so its presence says the build is complete.
# Environment: GP_VM_CACHE, GP_VM_REFRESH=1 (fetch the sysroot again),
# GP_VM_ARM64_JOBS (make's -j, default 2).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
[ $# -eq 1 ] || { echo "usage: $0 BUILDDIR" >&2; exit 2; }
mkdir -p "$1" && build=$(cd "$1" && pwd) || exit 1
cache=${GP_VM_CACHE:-/var/cache/gprofiler-vm}
. "$top/tests/vm/apt.sh"
triplet=aarch64-linux-gnu
sysroot=$cache/sysroot/bookworm-arm64
# What configure looks for, what the guest runs, and python3.11 for the
# guest's Python workload.
pkgs="libc6-dev linux-libc-dev libbpf-dev libelf-dev libdw-dev zlib1g-dev
	libevent-dev libcurl4-openssl-dev libjson-c-dev libiberty-dev
	libarchive-dev libssl-dev libprotobuf-c-dev busybox-static
	python3.11-minimal libpython3.11-stdlib"
t0=$SECONDS
say() { printf '%s (%d s)\n' "$*" "$((SECONDS - t0))"; }

rm -f "$build/vm-sysroot"
command -v "$triplet-gcc" >/dev/null ||
    { echo "no $triplet-gcc: apt-get install gcc-$triplet" >&2; exit 1; }
[ -x "$top/configure" ] ||
    { echo "no $top/configure: run autogen.sh" >&2; exit 1; }

# The sysroot: cached; nothing is fetched when it is there.
if [ ! -f "$sysroot/.done" ] || [ "${GP_VM_REFRESH:-0}" = 1 ]; then
	[ -n "$mirror" ] || { echo "no Debian mirror in /etc/apt" >&2; exit 1; }
	apt_opts bookworm arm64 bookworm-arm64
	debs=$cache/debs/bookworm-arm64-sysroot
	rm -rf "$sysroot" "$debs"
	mkdir -p "$sysroot" "$debs/partial"
	# shellcheck disable=SC2086
	if ! apt-get -q "${opts[@]}" update >"$build/sysroot.log" 2>&1 ||
	    ! apt-get -q -y "${opts[@]}" -o "Dir::Cache::archives=$debs" \
	    install --download-only --no-install-recommends $pkgs \
	    >>"$build/sysroot.log" 2>&1; then
		tail -5 "$build/sysroot.log" >&2
		exit 1
	fi
	for d in "$debs"/*.deb; do
		dpkg-deb -x "$d" "$sysroot" || exit 1
	done
	# Absolute symbolic links inside the sysroot (libfoo.so ->
	# /lib/...) would name the build machine's libraries.
	find "$sysroot" -type l -lname '/*' | while read -r l; do
		ln -sf "$sysroot$(readlink "$l")" "$l"
	done
	touch "$sysroot/.done"
	say "sysroot: $(ls "$debs"/*.deb | wc -l) packages, $(du -sm "$debs" | cut -f1) MB"
fi

cd "$build" || exit 1
if [ ! -f Makefile ]; then
	"$top/configure" -q --host=$triplet --disable-dependency-tracking \
	    CC="$triplet-gcc --sysroot=$sysroot" \
	    PKG_CONFIG_SYSROOT_DIR="$sysroot" \
	    PKG_CONFIG_LIBDIR="$sysroot/usr/lib/$triplet/pkgconfig:$sysroot/usr/share/pkgconfig" \
	    >configure.log 2>&1 || { tail -20 configure.log >&2; exit 1; }
	say "configured"
fi
make -j"${GP_VM_ARM64_JOBS:-2}" gprofiler tests/plugindir.stamp \
    tests/workloads/perf_busy tests/workloads/perf_busy_nofp \
    tests/workloads/perf_syscalls \
    >make.log 2>&1 || { tail -30 make.log >&2; exit 1; }
echo "$sysroot" >vm-sysroot
say "built"

#!/bin/bash
# The VM tier: the built agent on Debian's own kernels, booted in qemu.
#
#	tests/vm/run.sh [BUILDDIR]	(default: ./build; prints TAP)
#
# Everything else the suite proves runs on the build machine's kernel.
# Here each case boots a Debian kernel (fetched with apt through a private
# configuration, cached under GP_VM_CACHE, default /var/cache/gprofiler-vm)
# in qemu without KVM, with an initramfs holding the agent, its plugins,
# the libraries they link, busybox and workloads; the guest's init runs
# one profiling cycle and prints the .col file and the agent's log on the
# serial console, and the checks here read them.
#
# A case this agent cannot serve yet is reported as "not ok ... # TODO
# reason": it counts as a known failure, not as passing, and the reason is
# printed where a reader sees it.
#
# Environment: GP_VM_CACHE (the cache), GP_VM_CASES (default
# "5.10-amd64 6.1-amd64 6.1-amd64-perf-events 6.1-arm64"), GP_VM_REFRESH=1 (fetch the kernels
# again), GP_VM_TIMEOUT (seconds per boot, default 240), GP_VM_ARM64_BUILD
# (an arm64 build tree made by tests/vm/arm64-build.sh, for 6.1-arm64;
# without one that case is a TODO).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:-$top/build}" && pwd) || exit 1
cache=${GP_VM_CACHE:-/var/cache/gprofiler-vm}
cases=${GP_VM_CASES:-5.10-amd64 6.1-amd64 6.1-amd64-perf-events 6.1-arm64}
boot_timeout=${GP_VM_TIMEOUT:-240}
arm64=${GP_VM_ARM64_BUILD:-}
if [ -n "$arm64" ]; then arm64=$(cd "$arm64" && pwd) || exit 1; fi
. "$top/tests/vm/apt.sh"
work=$(mktemp -d "${TMPDIR:-/tmp}/gpvm.XXXXXX")
trap 'rm -rf "$work"' EXIT
n=0
t0=$SECONDS

ok() {		# ok STATUS DESCRIPTION [DIRECTIVE]
	n=$((n + 1))
	if [ "$1" = 0 ]; then
		echo "ok $n - $2${3:+ # $3}"
	else
		echo "not ok $n - $2${3:+ # $3}"
		case ${3:-} in TODO*) ;; *) case_failed=1 ;; esac
	fi
}
diag() { echo "$*" | sed 's/^/# /'; }

# fetch SUITE ARCH PKG...: the named packages' .deb files (PKG's own, or
# for a metapackage such as linux-image-amd64 the image it depends on),
# unpacked into $cache/root/SUITE-ARCH; cached: nothing is fetched when the
# tree is there, unless GP_VM_REFRESH=1.
fetch() {
	local suite=$1 arch=$2 dest=$cache/root/$1-$2 p real debs
	shift 2
	if [ -f "$dest/.done" ] && [ "${GP_VM_REFRESH:-0}" != 1 ]; then
		return 0
	fi
	[ -n "$mirror" ] || { diag "no Debian mirror in /etc/apt"; return 1; }
	apt_opts "$suite" "$arch"
	apt-get -q "${opts[@]}" update >"$work/apt-$suite.log" 2>&1 ||
	    { tail -5 "$work/apt-$suite.log" | sed 's/^/# /'; return 1; }
	rm -rf "$dest" "$cache/debs/$suite-$arch"
	mkdir -p "$dest" "$cache/debs/$suite-$arch"
	for p in "$@"; do
		real=$(apt-cache "${opts[@]}" depends "$p:$arch" 2>/dev/null |
		    sed -n 's/^ *Depends: \(linux-image-[0-9][^ ]*\)/\1/p' |
		    head -1)
		(cd "$cache/debs/$suite-$arch" &&
		    apt-get -q "${opts[@]}" download "${real:-$p:$arch}" \
		    >>"$work/apt-$suite.log" 2>&1) ||
		    { tail -5 "$work/apt-$suite.log" | sed 's/^/# /'; return 1; }
	done
	for debs in "$cache/debs/$suite-$arch"/*.deb; do
		dpkg-deb -x "$debs" "$dest" || return 1
	done
	touch "$dest/.done"
}

# copy_with_libs ROOT FILE...: FILE at its own path under ROOT, and every
# library ldd says it needs, and the dynamic loader.
copy_with_libs() {
	local root=$1 f l
	shift
	for f in "$@"; do
		mkdir -p "$root$(dirname "$f")"
		cp -L "$f" "$root$f"
		for l in $(ldd "$f" 2>/dev/null |
		    sed -n 's/.*=> \(\/[^ ]*\) .*/\1/p; s/^[[:space:]]*\(\/[^ ]*\) .*/\1/p'); do
			[ -e "$root$l" ] && continue
			mkdir -p "$root$(dirname "$l")"
			cp -L "$l" "$root$l"
		done
	done
}

# initramfs_amd64 OUT: the agent as installed would find itself, with
# workloads and an init that profiles one cycle and powers off.
initramfs_amd64() {
	local out=$1 r=$work/root-amd64 py
	rm -rf "$r"
	mkdir -p "$r"/{bin,dev,proc,sys,tmp,out,wl,etc,agent,var/run}
	cp /bin/busybox "$r/bin/busybox"
	# a copy, not a link to the build tree's path: a tree under /tmp
	# would be hidden by the guest's tmpfs (exit 127, "not found")
	copy_with_libs "$r" "$build/gprofiler"
	cp "$build/gprofiler" "$r/agent/gprofiler"
	cp -rL "$build/tests/plugindir" "$r/agent/plugins"
	copy_with_libs "$r" "$r"/agent/plugins/*.so
	for w in perf_busy perf_busy_nofp perf_syscalls; do
		cp "$build/tests/workloads/$w" "$r/wl/$w"
	done
	# Debian's CPython, with only what `python3 -S` imports at start-up.
	py=$(readlink -f /usr/bin/python3)
	if [ -x "$py" ]; then
		copy_with_libs "$r" "$py"
		ln -s "$py" "$r/wl/python3"
		python_lib "$r" "" "$py"
	fi
	initramfs_end "$r" "$out"
}

# python_lib ROOT SYSROOT PYTHON: what `python3 -S` imports at start-up
# (os.py, encodings/) from SYSROOT (empty: this machine) into ROOT, and
# the guest's Python workload.
python_lib() {
	local pl
	pl=$(dirname "$(dirname "$3")")/lib/$(basename "$3")
	mkdir -p "$1$pl/lib-dynload"
	cp "$2$pl/os.py" "$1$pl/"
	cp -r "$2$pl/encodings" "$1$pl/"
	cp "$top/tests/vm/py_hot.py" "$1/wl/py_hot.py"
}

# initramfs_end ROOT OUT: the users, the init, and the archive.
initramfs_end() {
	local r=$1
	echo 'root:x:0:0:root:/:/bin/sh' >"$r/etc/passwd"
	echo 'nobody:x:65534:65534:nobody:/:/bin/sh' >>"$r/etc/passwd"
	printf 'root:x:0:\nnogroup:x:65534:\n' >"$r/etc/group"
	cp "$top/tests/vm/init" "$r/init"
	chmod 755 "$r/init"
	(cd "$r" && find . | cpio -o -H newc --quiet) >"$2"
}

# sysroot_libs ROOT SYSROOT FILE...: every library FILE (an arm64 ELF
# under ROOT) needs, and theirs, and the dynamic loader, from SYSROOT into
# ROOT at the same paths.  readelf, not ldd: ldd runs the loader, which
# cannot run an arm64 program here.
sysroot_libs() {
	local root=$1 sr=$2 f n d p
	shift 2
	for f in "$@"; do
		for n in $(readelf -dl "$f" 2>/dev/null | sed -n \
		    's/.*(NEEDED).*\[\(.*\)\]$/\1/p; s/.*interpreter: \(\/[^]]*\)\]$/\1/p'); do
			p=
			case $n in
			/*)	p=$n ;;
			*)	for d in /lib/aarch64-linux-gnu /usr/lib/aarch64-linux-gnu \
				    /lib /usr/lib; do
					[ -e "$sr$d/$n" ] && { p=$d/$n; break; }
				done ;;
			esac
			[ -n "$p" ] || { diag "sysroot_libs: $n ($f) not in $sr"; return 1; }
			[ -e "$root$p" ] && continue
			mkdir -p "$root$(dirname "$p")"
			cp -L "$sr$p" "$root$p" || return 1
			sysroot_libs "$root" "$sr" "$root$p" || return 1
		done
	done
}

# initramfs_arm64 OUT: as initramfs_amd64, from the arm64 build and its
# sysroot (busybox, the libraries, Debian's CPython 3.11 for arm64).
initramfs_arm64() {
	local out=$1 r=$work/root-arm64 sr w
	sr=$(cat "$arm64/vm-sysroot") || return 1
	rm -rf "$r"
	mkdir -p "$r"/{bin,dev,proc,sys,tmp,out,wl,etc,agent,var/run,usr/bin}
	cp "$sr/bin/busybox" "$r/bin/busybox" || return 1
	cp "$arm64/gprofiler" "$r/agent/gprofiler" || return 1
	cp -rL "$arm64/tests/plugindir" "$r/agent/plugins" || return 1
	for w in perf_busy perf_busy_nofp perf_syscalls; do
		cp "$arm64/tests/workloads/$w" "$r/wl/$w" || return 1
	done
	cp "$sr/usr/bin/python3.11" "$r/usr/bin/python3.11" || return 1
	ln -s /usr/bin/python3.11 "$r/wl/python3"
	python_lib "$r" "$sr" /usr/bin/python3.11 || return 1
	sysroot_libs "$r" "$sr" "$r/agent/gprofiler" "$r"/agent/plugins/*.so \
	    "$r"/wl/perf_* "$r/usr/bin/python3.11" || return 1
	initramfs_end "$r" "$out"
}

# boot QEMU KERNEL INITRD CONSOLE [QEMU ARGS]: run the guest to power-off.
# $gpargs: the agent's options (comma-separated); $gpargs2: a second run's
# (the init runs the agent again with these); $tty: the serial console.
boot() {
	local q=$1 k=$2 i=$3 con=$4
	shift 4
	timeout "$boot_timeout" "$q" -accel tcg -m 1536 -smp 2 -kernel "$k" \
	    -initrd "$i" -append "console=${tty:-ttyS0} panic=-1 quiet loglevel=4${gpargs:+ gpargs=$gpargs}${gpargs2:+ gpargs2=$gpargs2}${gpargs3:+ gpargs3=$gpargs3}${gpargs4:+ gpargs4=$gpargs4}${gpargs5:+ gpargs5=$gpargs5}${gpnobtf:+ gpnobtf=$gpnobtf}" \
	    -display none -monitor none -serial "file:$con" -no-reboot "$@" \
	    </dev/null >"$con.qemu" 2>&1
}

# section CONSOLE NAME: the lines the guest printed between its markers.
section() {
	sed -n "/^=== GPVM $2 BEGIN ===/,/^=== GPVM $2 END ===/p" "$1" |
	    sed '1d;$d' | tr -d '\r' | sed '/^$/d'
}

# run_amd64 CASE SUITE [AGENT-OPTIONS,COMMA,SEPARATED [SECOND- [THIRD-
# [FOURTH-RUN-OPTIONS]]]]: boot Debian SUITE's amd64 kernel; $con is the console, $rc
# the agent's exit status (empty if it never ran).
run_amd64() {
	local k
	con=$work/$1.console
	rc=
	: >"$con"
	k=$(ls "$cache/root/$2-amd64"/boot/vmlinuz-* 2>/dev/null | head -1)
	[ -n "$k" ] || return 1
	[ -f "$work/initrd-amd64" ] || initramfs_amd64 "$work/initrd-amd64"
	gpargs=${3:-} gpargs2=${4:-} gpargs3=${5:-} gpargs4=${6:-} \
	    gpnobtf=${nobtf:-} \
	    boot qemu-system-x86_64 "$k" "$work/initrd-amd64" "$con"
	rc=$(sed -n 's/^=== GPVM RC \([0-9]*\) ===.*/\1/p' "$con" | tr -d '\r')
}

# run_arm64 CASE SUITE [AGENT-OPTIONS [SECOND- ... [FIFTH-RUN-OPTIONS]]]: as run_amd64,
# Debian SUITE's arm64 kernel and the arm64 build ($arm64) on qemu's
# generic arm64 board.  -cpu max without pointer authentication, which
# the kernel uses when the CPU has it and TCG emulates slowly: the case
# took 71 s with it, 36 s without (docs/PORTABILITY.md).
run_arm64() {
	local k
	con=$work/$1.console
	rc=
	: >"$con"
	k=$(ls "$cache/root/$2-arm64"/boot/vmlinuz-* 2>/dev/null | head -1)
	[ -n "$k" ] || return 1
	[ -f "$work/initrd-arm64" ] || initramfs_arm64 "$work/initrd-arm64" ||
	    return 1
	tty=ttyAMA0 gpargs=${3:-} gpargs2=${4:-} gpargs3=${5:-} gpargs4=${6:-} \
	    gpargs5=${7:-} \
	    boot qemu-system-aarch64 \
	    "$k" "$work/initrd-arm64" "$con" -M virt -cpu max,pauth=off
	rc=$(sed -n 's/^=== GPVM RC \([0-9]*\) ===.*/\1/p' "$con" | tr -d '\r')
}

# show_tail CASE: the end of a guest's console and the agent's log.
show_tail() {
	diag "--- $1: the agent's log"
	section "$con" LOG | tail -40 | sed 's/^/# /'
	diag "--- $1: the console's end"
	tr -d '\r' <"$con" | tail -15 | sed 's/^/# /'
}

# comm NAME: the .col lines (stdin) of processes named NAME.
comm() { awk -F';' -v c="$1" '$3 == c'; }

# profile_checks CASE DIRECTIVE: the profile the guest printed.
profile_checks() {
	local c=$1 todo=$2 col=$work/$1.col
	section "$con" COL >"$col"
	[ -s "$col" ]; ok $? "$c: the agent wrote a profile" "$todo"
	# a .col line: index;container;comm;frames... count
	comm perf_busy <"$col" | grep -q ';busy_round;hot_fifty\( \|;\)'
	ok $? "$c: native frames named (perf_busy's busy_round;hot_fifty)" \
	    "$todo"
	comm perf_syscalls <"$col" | grep -q ';main;.*;[a-z_]*read[a-z_]*_\[k\]'
	ok $? "$c: kernel frames (_[k]) above the syscall workload's main" \
	    "$todo"
	if grep -q '^=== GPVM PYTHON' "$con"; then
		comm python3 <"$col" |
		    grep -q 'vm_py_outer ([^)]*)_\[p\];vm_py_hot ([^)]*)_\[p\]'
		ok $? "$c: Python frames (vm_py_outer;vm_py_hot, _[p])" "$todo"
	fi
	# an ERROR is a capability lost on this kernel (an initramfs's
	# rootfs once made every mapping unreadable, and said so only here)
	! section "$con" LOG | grep '^ERROR' | sed 's/^/# /' | grep .
	ok $? "$c: the agent's log has no ERROR line" "$todo"
}

# legacy_checks CASE N: run N forced the legacy program (Linux 4.18 to
# 5.7's: perf events' rings, no global data, no loop) on this kernel.
legacy_checks() {
	local c=$1 k=$2 r col=$work/$1.col$2
	r=$(sed -n "s/^=== GPVM RC$k \([0-9]*\) ===.*/\1/p" "$con" | tr -d '\r')
	section "$con" COL$k >"$col"
	[ "$r" = 0 ] && section "$con" LOG$k |
	    grep -q 'through a BPF program for kernels before 5.8'
	ok $? "$c: --perf-backend bpf-legacy ran (exit ${r:-none})"
	comm perf_busy <"$col" | grep -q ';busy_round;hot_fifty\( \|;\)'
	ok $? "$c: the legacy program named native frames"
	comm perf_syscalls <"$col" | grep -q ';main;.*;[a-z_]*read[a-z_]*_\[k\]'
	ok $? "$c: and kernel frames above the syscall workload's main"
	comm python3 <"$col" |
	    grep -q 'vm_py_outer ([^)]*)_\[p\];vm_py_hot ([^)]*)_\[p\]'
	ok $? "$c: and Python frames, read after its wake-ups"
	! section "$con" LOG$k | grep -E '^(ERROR|WARN perf)' |
	    sed 's/^/# /' | grep .
	ok $? "$c: its log has no ERROR line, nor a WARN of the perf plugin"
}

echo "# the VM tier: mirror ${mirror:-none}, cache $cache"
tools="busybox cpio dpkg-deb apt-get timeout"
case " $cases " in *-amd64*) tools="$tools qemu-system-x86_64" ;; esac
case " $cases " in *" 6.1-arm64 "*)
	[ -n "$arm64" ] && tools="$tools qemu-system-aarch64 readelf" ;; esac
for t in $tools; do
	command -v "$t" >/dev/null || { echo "1..1"; ok 1 "$t is installed"
	    echo "0 passed, 1 failed"; exit 1; }
done
[ -x "$build/gprofiler" ] && [ -d "$build/tests/plugindir" ] &&
    [ -x "$build/tests/workloads/perf_busy" ] &&
    [ -x "$build/tests/workloads/perf_busy_nofp" ] || {
	echo "1..1"; ok 1 "$build has the agent, tests/plugindir and the workloads (make check TESTS=)"
	exit 1; }

for c in $cases; do
	s=$SECONDS
	case_failed=0
	con=
	case $c in
	6.1-amd64)
		fetch bookworm amd64 linux-image-amd64
		ok $? "$c: Debian 12's kernel fetched (cached in $cache)" ||
		    continue
		# the second run forced to the compat program, with the
		# kernel's BTF hidden from libbpf
		nobtf=2 run_amd64 "$c" bookworm "" --perf-backend,bpf-compat
		grep -q '^=== GPVM KERNEL' "$con"; ok $? "$c: booted"
		[ "$rc" = 0 ]; ok $? "$c: the agent ran and exited 0 (exit ${rc:-none})"
		profile_checks "$c" ""
		section "$con" LOG | grep -q 'through a BPF program'
		ok $? "$c: auto picked the BPF sampler"
		# this kernel's verifier took the frame walk, and it walked
		head -1 "$work/$c.col" | grep -q '"perf_walked_samples": [1-9]'
		ok $? "$c: Python frames walked in the BPF program"
		# the compat program, forced where the full one loads, with
		# /sys/kernel/btf/vmlinux an empty file
		rc2=$(sed -n 's/^=== GPVM RC2 \([0-9]*\) ===.*/\1/p' "$con" | tr -d '\r')
		[ "$rc2" = 0 ] && grep -q '^=== GPVM NOBTF 0 ===' "$con" &&
		    section "$con" LOG2 |
		    grep -q 'through a BPF program for older kernels'
		ok $? "$c: --perf-backend bpf-compat ran without the kernel's BTF (exit ${rc2:-none})"
		section "$con" COL2 | comm perf_busy |
		    grep -q ';busy_round;hot_fifty\( \|;\)'
		ok $? "$c: and named native frames"
		;;
	6.1-amd64-perf-events)
		fetch bookworm amd64 linux-image-amd64
		ok $? "$c: Debian 12's kernel fetched (cached in $cache)" ||
		    continue
		run_amd64 "$c" bookworm --perf-backend,perf-events
		grep -q '^=== GPVM KERNEL' "$con"; ok $? "$c: booted"
		[ "$rc" = 0 ]; ok $? "$c: the agent ran and exited 0 (exit ${rc:-none})"
		profile_checks "$c" ""
		section "$con" LOG | grep -q 'through perf events'
		ok $? "$c: sampled through perf events, as asked"
		;;
	5.10-amd64)
		fetch bullseye amd64 linux-image-amd64
		ok $? "$c: Debian 11's kernel fetched (cached in $cache)" ||
		    continue
		# auto, then the compat program's DWARF mode, then perf
		# events, then the legacy program
		run_amd64 "$c" bullseye "" --perf-mode,dwarf \
		    --perf-backend,perf-events --perf-backend,bpf-legacy
		grep -q '^=== GPVM KERNEL' "$con"; ok $? "$c: booted"
		[ "$rc" = 0 ]; ok $? "$c: the agent ran and exited 0 (exit ${rc:-none})"
		# The BPF sampler needs bpf_get_current_task_btf (5.11) and
		# bpf_task_pt_regs (5.15): auto takes the compat program.
		profile_checks "$c" ""
		section "$con" LOG | grep 'sampling through a BPF program for older kernels instead' |
		    grep -q 'cannot load the BPF sampler'
		ok $? "$c: auto fell back to the compat BPF program and said why"
		head -1 "$work/$c.col" | grep -q '"perf_walked_samples": [1-9]'
		ok $? "$c: Python frames walked in the compat program"
		rc2=$(sed -n 's/^=== GPVM RC2 \([0-9]*\) ===.*/\1/p' "$con" | tr -d '\r')
		[ "$rc2" = 0 ] && section "$con" LOG2 | grep 'dwarf stacks' |
		    grep -q 'a BPF program for older kernels'
		ok $? "$c: --perf-mode dwarf through the compat program ran (exit ${rc2:-none})"
		section "$con" COL2 | comm perf_busy_nofp |
		    grep -q ';main;busy_run;busy_round;hot_fifty\( \|;\)'
		ok $? "$c: its samples taken in user mode DWARF-unwound (perf_busy_nofp's main;busy_run;busy_round;hot_fifty)"
		section "$con" COL2 | comm perf_syscalls |
		    grep -q ';main;.*;[a-z_]*read[a-z_]*_\[k\]'
		ok $? "$c: those taken in the kernel keep their user stack (frame pointers: perf_syscalls' main above its read)"
		rc3=$(sed -n 's/^=== GPVM RC3 \([0-9]*\) ===.*/\1/p' "$con" | tr -d '\r')
		[ "$rc3" = 0 ] && section "$con" COL3 | comm perf_busy |
		    grep -q ';busy_round;hot_fifty\( \|;\)'
		ok $? "$c: perf events, as asked, named native frames (exit ${rc3:-none})"
		legacy_checks "$c" 4
		# What the operator is told: the verifier's own reason and
		# the helper's name, not a listing cut mid-word.
		section "$con" LOG >"$work/$c.log"
		grep -q 'invalid func unknown#158' "$work/$c.log"
		ok $? "$c: the log carries the verifier's reason (invalid func unknown#158)"
		grep 'cannot load the BPF sampler' "$work/$c.log" |
		    grep 'bpf_get_current_task_btf' | grep -q '5\.11'
		ok $? "$c: the error names the missing helper and the release that has it"
		;;
	6.1-arm64)
		if [ -z "$arm64" ] || [ ! -f "$arm64/vm-sysroot" ]; then
			ok 1 "$c: the agent profiles on arm64" "TODO no arm64 build given: tests/vm/arm64-build.sh DIR (needs gcc-aarch64-linux-gnu and qemu-system-arm), then GP_VM_ARM64_BUILD=DIR tests/vm/run.sh"
			continue
		fi
		fetch bookworm arm64 linux-image-arm64
		ok $? "$c: Debian 12's arm64 kernel fetched (cached in $cache)" ||
		    continue
		# one boot, two runs: a cycle, then DWARF mode, which
		# arm64 refuses at start-up
		run_arm64 "$c" bookworm "" --perf-mode,dwarf \
		    --perf-mode,dwarf,--perf-backend,perf-events \
		    --perf-mode,dwarf,--perf-backend,bpf-compat \
		    --perf-backend,bpf-legacy
		grep -q '^=== GPVM KERNEL.* aarch64 ===' "$con"
		ok $? "$c: booted (aarch64, qemu TCG)"
		[ "$rc" = 0 ]; ok $? "$c: the agent ran and exited 0 (exit ${rc:-none})"
		# Debian's arm64 CPython 3.11 in the guest: its frames
		# are mapped near 2^48, above x86-64's user half
		profile_checks "$c" ""
		section "$con" LOG | grep -q 'through a BPF program'
		ok $? "$c: auto picked the BPF sampler"
		# this kernel's verifier took the frame walk, and it walked
		head -1 "$work/$c.col" | grep -q '"perf_walked_samples": [1-9]'
		ok $? "$c: Python frames walked in the BPF program"
		# the second run: DWARF unwinding with arm64's registers
		rc2=$(sed -n 's/^=== GPVM RC2 \([0-9]*\) ===.*/\1/p' "$con" | tr -d '\r')
		[ "$rc2" = 0 ]
		ok $? "$c: --perf-mode dwarf ran and exited 0 (exit ${rc2:-none})"
		section "$con" LOG2 | grep -q 'dwarf stacks'
		ok $? "$c: it sampled DWARF stacks"
		section "$con" COL2 >"$work/$c.col2"
		# built without frame pointers: only the call frame
		# information gives its callers (the fp run's stacks, for
		# comparison)
		comm perf_busy_nofp <"$work/$c.col" | sort -t' ' -k2 -rn |
		    head -2 | cut -c1-200 | sed 's/^/# fp run: /'
		comm perf_busy_nofp <"$work/$c.col2" |
		    grep -q ';main;busy_run;busy_round;hot_fifty\( \|;\)'
		ok $? "$c: DWARF-unwound native frames (perf_busy_nofp's main;busy_run;busy_round;hot_fifty)"
		! section "$con" LOG2 | grep '^ERROR' | sed 's/^/# /' | grep .
		ok $? "$c: its log has no ERROR line"
		# the third: the same through perf events' user registers
		rc3=$(sed -n 's/^=== GPVM RC3 \([0-9]*\) ===.*/\1/p' "$con" | tr -d '\r')
		[ "$rc3" = 0 ] && section "$con" LOG3 | grep 'dwarf stacks' |
		    grep -q 'perf events'
		ok $? "$c: --perf-mode dwarf through perf events ran (exit ${rc3:-none})"
		section "$con" COL3 | comm perf_busy_nofp |
		    grep -q ';main;busy_run;busy_round;hot_fifty\( \|;\)'
		ok $? "$c: perf events' registers unwound too (perf_busy_nofp's main;busy_run;busy_round;hot_fifty)"
		# the fourth: the compat BPF program, forced
		rc4=$(sed -n 's/^=== GPVM RC4 \([0-9]*\) ===.*/\1/p' "$con" | tr -d '\r')
		[ "$rc4" = 0 ] && section "$con" LOG4 | grep 'dwarf stacks' |
		    grep -q 'a BPF program for older kernels'
		ok $? "$c: --perf-backend bpf-compat ran (exit ${rc4:-none})"
		section "$con" COL4 | comm perf_busy_nofp |
		    grep -q ';main;busy_run;busy_round;hot_fifty\( \|;\)'
		ok $? "$c: its user-mode samples DWARF-unwound from the event's registers"
		legacy_checks "$c" 5
		;;
	*)
		ok 1 "$c: a case this tier knows"
		continue
		;;
	esac
	if [ "$case_failed" = 1 ] && [ -f "$con" ]; then
		show_tail "$c"
	elif [ -f "$con" ]; then
		# the agent's errors and the verifier's last words
		section "$con" LOG | grep -E '^ERROR|invalid func|unknown func' |
		    sed "s/^/# $c: /"
	fi
	diag "$c: $((SECONDS - s)) s"
done
echo "1..$n"
diag "the VM tier took $((SECONDS - t0)) s"

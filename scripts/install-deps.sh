#!/bin/sh
# Install what gprofiler needs on Debian 12, as root.
#   scripts/install-deps.sh          build dependencies and what the agent runs
#   scripts/install-deps.sh --test   and what the test suite runs against
set -e
export DEBIAN_FRONTEND=noninteractive
build="build-essential autoconf automake libtool pkg-config ca-certificates
	clang llvm bpftool libbpf-dev libelf-dev libdw-dev zlib1g-dev
	libevent-dev libcurl4-openssl-dev libjson-c-dev libiberty-dev
	libarchive-dev libssl-dev libprotobuf-c-dev protobuf-c-compiler"
# What the agent runs on a host: jattach asks each JVM for its perf map
# (without it the java plugin warns at every start and Java frames go
# unnamed).  The Debian package recommends it.
run="jattach"
# Peers for the benchmarks and independent decoders and runtimes for tests.
test="python3 openssl procps psmisc util-linux iproute2 linux-perf bpftrace
	protobuf-compiler chromium openjdk-17-jdk-headless g++
	binutils elfutils time"
# bench/perf_hostile.sh: a large shared library to symbolize (libLLVM).
test="$test libllvm14"
# The manual pages' lint and rendering (tests/integration/151-manpages.sh).
test="$test mandoc man-db"
# Container runtimes the container-name tests run against (and curl, which
# checks podman's socket).
test="$test containerd runc docker.io podman curl"
# Stripped Go binaries built at test time (test_sym_gopclntab, 271-perf-go).
test="$test golang-go"
# A Go binary linked against musl (test_sym_gobuildinfo's libc check).
test="$test musl-tools"
# PHP 8.2 CLI and FPM for the PHP reader (tests/integration/76-php-*.sh);
# Ruby 3.1 for the Ruby reader (tests/integration/772-ruby-frames.sh).
test="$test php-cli php-fpm ruby"
# A FUSE server that never answers, mounted by an unprivileged user
# (tests/integration/36, 37 and 46, tests/fuse_lib.sh); a FUSE mirror of
# "/" standing in for a diskless host's NFS root (470-root-remote-fs).
test="$test fuse3 libfuse3-dev bindfs"
# The VM tier (tests/vm/run.sh): Debian's kernels booted in qemu without
# KVM, with busybox and the agent in an initramfs; its arm64 case boots an
# arm64 build (tests/vm/arm64-build.sh: a cross compiler; the arm64
# libraries come from Debian's mirror into the tier's cache, not from dpkg).
test="$test qemu-system-x86 qemu-system-arm busybox-static cpio
	gcc-aarch64-linux-gnu"
pkgs="$build $run"
[ "${1:-}" = "--test" ] && pkgs="$build $run $test"
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $pkgs >/dev/null

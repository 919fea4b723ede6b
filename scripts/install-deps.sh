#!/bin/sh
# Install what gprofiler needs to build and test on Debian 12, as root.
set -e
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends \
	build-essential autoconf automake libtool pkg-config ca-certificates \
	clang llvm bpftool libbpf-dev libelf-dev libdw-dev zlib1g-dev \
	libevent-dev libcurl4-openssl-dev libjson-c-dev libiberty-dev \
	libarchive-dev libssl-dev libprotobuf-c-dev protobuf-c-compiler \
	${GP_TEST_DEPS:-} >/dev/null

#!/bin/sh
# Start the container runtimes the container tests use, each on its usual
# socket, unless it already answers there: containerd (CRI and its own
# API), dockerd (on that containerd), podman's Docker-compatible service.
# Usage: container_runtimes.sh start [containerd|docker|podman|all]
# Exit 0 when the runtime answers; else 1 with the reason on the last line
# of stderr (the tests skip with it).  Logs: $GP_RUNTIME_LOGS
# (/var/log/gprofiler-test).  Nothing is stopped: .ci/run runs on a fresh
# machine and several tests share the runtimes.
set -u
what=${2:-all}
logs=${GP_RUNTIME_LOGS:-/var/log/gprofiler-test}
CTRD_SOCK=/run/containerd/containerd.sock
DOCKER_SOCK=/var/run/docker.sock
PODMAN_SOCK=/run/podman/podman.sock

fail() {
	echo "$*" >&2
	exit 1
}

[ "$(id -u)" -eq 0 ] || fail "container runtimes need root"
mkdir -p "$logs"

# wait_for SECONDS CMD...: until CMD succeeds.
wait_for() {
	n=$(($1 * 5))
	shift
	while [ $n -gt 0 ]; do
		"$@" >/dev/null 2>&1 && return 0
		sleep 0.2
		n=$((n - 1))
	done
	return 1
}

start_containerd() {
	command -v containerd >/dev/null || fail "containerd not installed (apt-get install containerd runc)"
	command -v runc >/dev/null || fail "runc not installed"
	ctr version >/dev/null 2>&1 && return 0
	# Our own config: the default one plus a sandbox (pause) image the
	# tests import themselves, since nothing can be pulled; and pods'
	# oom_score_adj no lower than ours, as lowering it needs
	# CAP_SYS_RESOURCE, which a sandboxed root may lack (runc then fails
	# with "can't get final child's PID from pipe").
	cfg=$logs/containerd.toml
	cat >"$cfg" <<'TOML'
version = 2
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "localhost/gp-busy:1"
  restrict_oom_score_adj = true
TOML
	setsid containerd --config "$cfg" >"$logs/containerd.log" 2>&1 \
	    </dev/null &
	wait_for 30 ctr version ||
	    fail "containerd did not start: $(tail -1 "$logs/containerd.log")"
}

start_docker() {
	command -v dockerd >/dev/null || fail "dockerd not installed (apt-get install docker.io)"
	start_containerd
	docker version >/dev/null 2>&1 && return 0
	# No bridge, no iptables: the tests use --network none and the
	# machine's network is left alone.
	setsid dockerd --iptables=false --ip-masq=false --bridge=none \
	    --containerd="$CTRD_SOCK" -H "unix://$DOCKER_SOCK" \
	    >"$logs/dockerd.log" 2>&1 </dev/null &
	wait_for 60 docker version ||
	    fail "dockerd did not start: $(tail -1 "$logs/dockerd.log")"
}

podman_answers() {
	curl -sf --max-time 5 --unix-socket "$PODMAN_SOCK" \
	    http://localhost/_ping >/dev/null
}

start_podman() {
	command -v podman >/dev/null || fail "podman not installed (apt-get install podman)"
	command -v curl >/dev/null || fail "curl not installed"
	podman_answers && return 0
	mkdir -p "$(dirname "$PODMAN_SOCK")"
	setsid podman system service --time=0 "unix://$PODMAN_SOCK" \
	    >"$logs/podman.log" 2>&1 </dev/null &
	wait_for 30 podman_answers ||
	    fail "podman's service did not start: $(tail -1 "$logs/podman.log")"
}

case ${1:-} in
start)	;;
*)	fail "usage: $0 start [containerd|docker|podman|all]" ;;
esac
case $what in
containerd)	start_containerd ;;
docker)		start_docker ;;
podman)		start_podman ;;
all)		start_containerd; start_docker; start_podman ;;
*)		fail "unknown runtime $what" ;;
esac

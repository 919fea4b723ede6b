# Shared helpers for the Performance Studio integration tests (5x-studio-*):
# the fake backend (tests/fakes/studio_server.py) on a free 127.0.0.1 port,
# the real daemon in the background, bounded waits, and queries of what the
# fake server recorded.  Source after tests/tap.sh.
#
#   studio_init                 temp dir, cleanup trap, skip without python3
#   studio_server NAME [args]   start a fake server; sets SRV_URL, SRV_PORT
#   studio_stop_server NAME     stop it (its state file survives)
#   gp_start NAME args...       run the daemon in the background, stderr
#                               to $TMP/NAME.log; sets GP_PID
#   gp_stop                     SIGTERM the daemon, wait (bounded)
#   wait_for SECS cmd...        poll cmd every 0.2 s until it succeeds
#   srv_get PATH                GET from the fake server (stdout)
#   srv_post PATH JSON          POST JSON to the fake server (stdout)
#   srv_py 'python code'        run code with `get(path)` and `post(path,
#                               obj)` defined; exit status is the result

STUDIO_TOKEN=tok-$$-s3cr3t-Zq9
STUDIO_SVC=studio-test-svc
PY=${PYTHON3:-python3}
studio_pids=""

studio_cleanup() {
	for p in $studio_pids; do
		kill "$p" 2>/dev/null
	done
	for p in $studio_pids; do
		wait "$p" 2>/dev/null
	done
	# A failed check: the end of each agent log, for reading CI output.
	if [ "${tap_failed:-0}" -gt 0 ]; then
		for _l in "$TMP"/*.log; do
			[ -f "$_l" ] || continue
			echo "# --- tail of $(basename "$_l")"
			tail -25 "$_l" | sed 's/^/# /'
		done
	fi
	# STUDIO_KEEP=1: keep the logs and records to debug a failure.
	if [ -n "$STUDIO_KEEP" ]; then
		echo "# kept $TMP"
	else
		rm -rf "$TMP"
	fi
}

studio_init() {
	command -v "$PY" >/dev/null 2>&1 || skip_all "no python3"
	[ -x "$GP_BIN" ] || skip_all "no daemon (GP_BIN)"
	TMP=$(mktemp -d /tmp/gpstudio.XXXXXX) || exit 99
	trap 'studio_cleanup' EXIT
	trap 'exit 1' INT TERM
}

# wait_for SECS cmd...: 0 once cmd succeeds, 1 after SECS seconds.
wait_for() {
	_wf_n=$(($1 * 5))
	shift
	while [ "$_wf_n" -gt 0 ]; do
		"$@" >/dev/null 2>&1 && return 0
		sleep 0.2
		_wf_n=$((_wf_n - 1))
	done
	return 1
}

# studio_server NAME [server args]: the server's files are $TMP/NAME.*
studio_server() {
	_n=$1
	shift
	rm -f "$TMP/$_n.port"
	"$PY" "$top_srcdir/tests/fakes/studio_server.py" \
	    --port-file "$TMP/$_n.port" --token "$STUDIO_TOKEN" "$@" \
	    >"$TMP/$_n.srvlog" 2>&1 &
	eval "SRVPID_$_n=$!"
	studio_pids="$studio_pids $!"
	if ! wait_for 10 test -s "$TMP/$_n.port"; then
		echo "Bail out! the fake studio server did not start"
		cat "$TMP/$_n.srvlog"
		exit 1
	fi
	SRV_PORT=$(cat "$TMP/$_n.port")
	SRV_SCHEME=http
	for _a in "$@"; do
		[ "$_a" = --tls ] && SRV_SCHEME=https
	done
	SRV_URL="$SRV_SCHEME://127.0.0.1:$SRV_PORT"
	SRV_CTL="$SRV_SCHEME://127.0.0.1:$SRV_PORT"
}

studio_stop_server() {
	eval "_p=\$SRVPID_$1"
	kill "$_p" 2>/dev/null
	wait "$_p" 2>/dev/null
}

# Talk to the fake server (no certificate checks: it is ours).
srv_py() {
	_code=$1
	shift
	SRV_CTL=$SRV_CTL "$PY" -c '
import json, os, ssl, sys, urllib.request
BASE = os.environ["SRV_CTL"]
CTX = ssl._create_unverified_context()
def _req(path, data=None):
    r = urllib.request.Request(BASE + path, data=data,
        headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(r, timeout=10, context=CTX) as f:
        return f.read().decode()
def get(path):
    return json.loads(_req(path))
def post(path, obj):
    return json.loads(_req(path, json.dumps(obj).encode()))
'"$_code" "$@"
}

srv_get() {
	srv_py "sys.stdout.write(json.dumps(get('$1')))"
}

srv_post() {
	SRV_BODY=$2 srv_py "sys.stdout.write(json.dumps(post('$1', json.loads(os.environ['SRV_BODY']))))"
}

# The number of profiles the fake server accepted.
srv_nprofiles() {
	srv_py 'print(len(get("/_fake/profiles")))'
}

# srv_nprofiles_ge N: at least N accepted.
srv_nprofiles_ge() {
	[ "$(srv_nprofiles 2>/dev/null || echo 0)" -ge "$1" ]
}

# srv_failed_ge MODE N: the fake failed at least N requests with MODE.
srv_failed_ge() {
	srv_py 'sys.exit(0 if sum(1 for r in get("/_fake/requests")
    if r.get("failed") == sys.argv[1]) >= int(sys.argv[2]) else 1)' "$1" "$2"
}

# srv_completed ID: a completion for command ID has arrived.
srv_completed() {
	srv_py 'sys.exit(0 if any(c["command_id"] == sys.argv[1]
    for c in get("/_fake/completions")) else 1)' "$1"
}

# srv_heartbeats_ge N: at least N heartbeats arrived.
srv_heartbeats_ge() {
	srv_py 'sys.exit(0 if len(get("/_fake/heartbeats")) >= int(sys.argv[1])
    else 1)' "$1"
}

# srv_request JSON: a profile_request as the UI makes it; prints the new
# command's id (one target host).
srv_request() {
	SRV_BODY=$1 srv_py 'r = post("/api/metrics/profile_request",
    json.loads(os.environ["SRV_BODY"]))
print(r["command_ids"][0])'
}

# The hostname the agent reports (from its first heartbeat).
srv_agent_hostname() {
	srv_py 'print(get("/_fake/heartbeats")[0]["hostname"])'
}

gp_start() {
	_n=$1
	shift
	"$GP_BIN" --plugin-dir "$GP_PLUGIN_DIR" "$@" >>"$TMP/$_n.log" 2>&1 &
	GP_PID=$!
	studio_pids="$studio_pids $GP_PID"
}

# gp_stop: SIGTERM and wait; 0 if the daemon exited by itself in time.
gp_stop() {
	kill -TERM "$GP_PID" 2>/dev/null
	_gs_n=100
	while kill -0 "$GP_PID" 2>/dev/null && [ "$_gs_n" -gt 0 ]; do
		sleep 0.1
		_gs_n=$((_gs_n - 1))
	done
	if kill -0 "$GP_PID" 2>/dev/null; then
		kill -KILL "$GP_PID" 2>/dev/null
		wait "$GP_PID" 2>/dev/null
		return 1
	fi
	wait "$GP_PID" 2>/dev/null
	return 0
}

# Options every daemon run gets: cheap cycles, private spool and state.
gp_cheap="--perf-mode disabled --python-mode disabled --java-mode disabled"

#!/usr/bin/env python3
"""A local stand-in for the gProfiler Performance Studio backend.

Reproduces the agent-facing HTTP contract of docs/specs/studio-api.md (§10
checklist): health check, profile upload with the backend's validation and
gpid flow, heartbeat with latest-command re-sending, command completion
rules, profile_request translation into per-host commands, and the logs
endpoint.  Standard library only.

Test hooks (project-only, under /_fake/, never in the real backend):
  POST /_fake/fail     {"mode": "refuse|500|503|hang|slow|garbage|413|429",
                        "count": N (default: until cleared), "paths": [...]}
                       also "raw" (answer "status" (200) with the text
                       "body"), "huge" (200 with a valid JSON object of
                       "size" bytes, default 8 MiB)
  POST /_fake/clear    back to normal
  POST /_fake/command  {"hostname", "service_name", "command_type",
                        "combined_config"}: queue a command without the UI
  GET  /_fake/profiles, /_fake/heartbeats, /_fake/completions,
       /_fake/logs, /_fake/requests, /_fake/commands, /_fake/fallbacks
       (heartbeats answered "failed to check for commands": bad ip,
       status or a non-UUID id; the backend does not store them)
       (profiles, heartbeats and completions carry "received", the
       server's time.time() on arrival)
Latency: every API answer (not /_fake/) is delayed as a real deployment's
would be: a network round trip plus the backend's work (Postgres upserts;
for an upload also S3 and SQS, longer for larger bodies), with jitter.
--latency-scale S (env FAKE_STUDIO_LATENCY_SCALE; default 1 = realistic)
scales it; 0 answers at once, for tests that compress time beside ones
that do not.
Usage: studio_server.py --port-file F [--port N] [--tls CERT KEY]
       [--token T]... [--basic USER:PASS] [--state FILE]
       [--latency-scale S]
"""
import argparse
import base64
import datetime
import gzip
import ipaddress
import json
import os
import random
import re
import socket
import ssl
import sys
import threading
import time
import urllib.parse
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

MAX_CONTENT_LEN = 4 * 1024 * 1024
LOCK = threading.RLock()

STATE = {
    "profiles": [], "heartbeats": [], "completions": [], "logs": [],
    "requests": [], "commands": {}, "executions": {}, "processes": {},
    "next_gpid": 1, "profile_requests": {}, "fallbacks": [],
}
FAIL = {"mode": None, "count": None, "paths": None, "body": "",
        "status": 200, "size": 8 << 20}
ARGS = None

HOSTS_HEADERS = ("gprofiler-api-key", "gprofiler-service-name")
RUN_MODES = ("k8s", "container", "standalone_executable", "local_python")
CLOUDS = ("aws", "gcp", "azure", "unknown")
MAC_RE = re.compile(r"^[0-9A-Fa-f]{2}([:-]?)[0-9A-Fa-f]{2}(\1[0-9A-Fa-f]{2}){4}$")
VERSION_RE = re.compile(r"^(\d+)\.(\d+)\.(\d+)(-.*)?$")
STATUSES = ("active", "idle", "error", "offline")

# Seconds: one network round trip to a hosted backend, and each endpoint's
# work behind it (FastAPI + Postgres; uploads also write S3 and send SQS).
LATENCY_RTT = 0.05
LATENCY_WORK = {
    "/api/v1/health_check": 0.01, "/api/v2/health_check": 0.01,
    "/api/metrics/heartbeat": 0.03, "/api/metrics/command_completion": 0.03,
    "/api/metrics/profile_request": 0.05, "/api/v1/logs": 0.02,
    "/api/v2/profiles": 0.20,
}
LATENCY_PER_MIB = 0.10      # uploads: transfer and S3 write per MiB


def latency(path, nbytes):
    """How long the real backend would take to answer this request."""
    if ARGS.latency_scale <= 0 or path.startswith("/_fake/"):
        return 0.0
    base = LATENCY_RTT + LATENCY_WORK.get(path, 0.02)
    base += LATENCY_PER_MIB * nbytes / (1 << 20)
    return ARGS.latency_scale * base * random.uniform(0.8, 1.3)


def now_iso():
    return datetime.datetime.now().isoformat()


def save_state():
    if ARGS.state:
        tmp = ARGS.state + ".tmp"
        with open(tmp, "w") as f:
            json.dump(STATE, f)
        os.replace(tmp, ARGS.state)


def load_state():
    if ARGS.state and os.path.exists(ARGS.state):
        with open(ARGS.state) as f:
            STATE.update(json.load(f))


def parse_iso(s):
    if not isinstance(s, str):
        raise ValueError("not a string")
    s2 = s[:-1] + "+00:00" if s.endswith("Z") else s
    return datetime.datetime.fromisoformat(s2)


def is_uuid(s):
    try:
        uuid.UUID(str(s))
        return True
    except ValueError:
        return False


def detail(loc, msg, typ):
    return {"detail": [{"loc": loc, "msg": msg, "type": typ}]}


def missing(loc):
    return detail(loc, "field required", "value_error.missing")


def validate_metadata(md):
    """AgentMetadata (schemas.py) plus the DB constraints; True if valid."""
    if not isinstance(md, dict):
        return False
    req_str = ("hostname", "private_ip", "system_name", "os_name",
               "os_release", "kernel_release", "kernel_version",
               "hardware_type", "libc_type", "libc_version",
               "python_version", "deployment_type")
    for k in req_str:
        if not isinstance(md.get(k), str):
            return False
    for k in ("current_time", "spawn_time"):
        try:
            parse_iso(md.get(k))
        except (ValueError, TypeError):
            return False
    for k in ("spawn_uptime_ms", "processors", "memory_capacity_mb", "pid"):
        v = md.get(k)
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            return False
    if int(md["processors"]) <= 0 or int(md["memory_capacity_mb"]) <= 0:
        return False
    if int(md["pid"]) < 0:
        return False
    if not isinstance(md.get("cloud_provider"), str) or \
            md["cloud_provider"].lower() not in CLOUDS:
        return False
    if not isinstance(md.get("mac_address"), str) or \
            not MAC_RE.match(md["mac_address"]):
        return False
    if not isinstance(md.get("agent_version"), str) or \
            not VERSION_RE.match(md["agent_version"]):
        return False
    if md.get("run_mode") not in RUN_MODES:
        return False
    if not isinstance(md.get("run_arguments"), dict):
        return False
    if "cloud_info" in md and not isinstance(md["cloud_info"], dict):
        return False
    if "big_data" in md and md["big_data"] is not None and \
            not isinstance(md["big_data"], dict):
        return False
    return True


def version_tuple(v):
    m = VERSION_RE.match(v)
    return (int(m.group(1)), int(m.group(2)), int(m.group(3)))


def sanitize_service(name):
    return re.sub(r"[^A-Za-z0-9_.\-]", "", name).lstrip("_")


def env_type(containers):
    if not containers:
        return "instances"
    if any("ecs-" in c for c in containers):
        return "ecs"
    if any(re.match(r"^k8s_[^_]+_[^_]+_[^_]+_[^_]+_\d+$", c)
           for c in containers):
        return "k8s"
    return "containers"


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "uvicorn"

    def log_message(self, fmt, *args):
        if ARGS.verbose:
            sys.stderr.write("fake-studio: " + fmt % args + "\n")

    # -- plumbing --------------------------------------------------------
    def reply(self, status, obj, raw=None):
        self.last_status = status
        body = raw if raw is not None else json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def read_body(self):
        n = int(self.headers.get("Content-Length", "0") or 0)
        return self.rfile.read(n) if n > 0 else b""

    def injected_failure(self, path):
        """Apply a /_fake/fail switch; True if the request was consumed."""
        with LOCK:
            mode = FAIL["mode"]
            if mode is None or path.startswith("/_fake/"):
                return False
            if FAIL["paths"] and not any(path.startswith(p)
                                         for p in FAIL["paths"]):
                return False
            if FAIL["count"] is not None:
                if FAIL["count"] <= 0:
                    FAIL["mode"] = None
                    return False
                FAIL["count"] -= 1
            STATE["requests"].append({"path": path, "failed": mode})
        if "Content-Length" in self.headers:
            self.read_body()
        if mode == "refuse":
            self.close_connection = True
            try:
                self.connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            return True
        if mode == "hang":
            time.sleep(3600)
            return True
        if mode == "slow":
            time.sleep(ARGS.slow)
            return False
        if mode == "raw":
            self.reply(FAIL["status"], None, raw=FAIL["body"].encode())
            return True
        if mode == "huge":
            pad = max(FAIL["size"] - 40, 0)
            self.reply(200, None, raw=b'{"success": true, "message": "' +
                       b"x" * pad + b'"}')
            return True
        if mode == "garbage":
            self.reply(200, None, raw=b"\x00{not json<<")
            return True
        if mode == "413":
            self.reply(413, "Request Entity Too Large")
            return True
        if mode == "429":
            self.reply(429, {"message": "Too Many Requests"})
            return True
        self.reply(int(mode), "Internal Server Error")
        return True

    def basic_ok(self):
        if not ARGS.basic:
            return True
        want = "Basic " + base64.b64encode(ARGS.basic.encode()).decode()
        if self.headers.get("Authorization") == want:
            return True
        body = b"<html><body>401 Authorization Required</body></html>"
        self.send_response(401)
        self.send_header("WWW-Authenticate", 'Basic realm="gprofiler"')
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
        return False

    def route(self, method):
        url = urllib.parse.urlsplit(self.path)
        path = url.path
        if self.injected_failure(path):
            return
        if path != "/" and path.endswith("/") and not path.startswith("/_fake"):
            self.read_body()
            self.send_response(307)
            self.send_header("Location", path.rstrip("/"))
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        routes = {
            ("GET", "/api/v1/health_check"): self.health,
            ("GET", "/api/v2/health_check"): self.health,
            ("POST", "/api/v2/profiles"): self.profiles,
            ("POST", "/api/metrics/heartbeat"): self.heartbeat,
            ("POST", "/api/metrics/command_completion"): self.completion,
            ("POST", "/api/metrics/profile_request"): self.profile_request,
            ("POST", "/api/v1/logs"): self.logs,
        }
        fn = routes.get((method, path))
        try:
            nbytes = int(self.headers.get("Content-Length", "0") or 0)
        except ValueError:
            nbytes = 0
        delay = latency(path, nbytes)
        if delay > 0:
            time.sleep(delay)
        if fn is None and path.startswith("/_fake/"):
            fn = getattr(self, "fake_" + path[7:].replace("/", "_"), None)
        if fn is None:
            self.read_body()
            self.reply(404, {"detail": "Not Found"})
            return
        if path in ("/api/metrics/command_completion",
                    "/api/metrics/profile_request") and not self.basic_ok():
            self.read_body()
            return
        rec = {"path": path, "method": method, "query": url.query}
        with LOCK:
            STATE["requests"].append(rec)
        self.last_status = None
        fn(url)
        with LOCK:
            rec["status"] = self.last_status

    def do_GET(self):
        self.route("GET")

    def do_POST(self):
        self.route("POST")

    def do_PUT(self):
        self.route("PUT")

    def json_body(self, raw):
        try:
            return json.loads(raw), None
        except (ValueError, UnicodeDecodeError) as e:
            return None, detail(["body", 0], "Expecting value: %s" % e,
                                "value_error.jsondecode")

    def dict_body(self, raw, required=()):
        """The JSON object body with every `required` key non-null, or None
        once the 422 (FastAPI's wording) has been sent."""
        body, err = self.json_body(raw)
        if err:
            self.reply(422, err)
            return None
        if not isinstance(body, dict):
            self.reply(422, detail(["body"], "value is not a valid dict",
                                   "type_error.dict"))
            return None
        for k in required:
            if body.get(k) is None:
                self.reply(422, missing(["body", k]))
                return None
        return body

    # -- §3 -------------------------------------------------------------
    def health(self, url):
        key = self.headers.get("GPROFILER-API-KEY")
        svc = self.headers.get("GPROFILER-SERVICE-NAME")
        if key is not None and svc is not None and key not in ARGS.token:
            self.reply(400, {"message": "Invalid API key"})
            return
        self.reply(200, {"message": "ok"})

    # -- §4 -------------------------------------------------------------
    def profiles(self, url):
        if "Content-Length" not in self.headers:
            self.reply(411, "Length Required")
            self.close_connection = True
            return
        if int(self.headers["Content-Length"]) > MAX_CONTENT_LEN:
            self.reply(413, "Request Entity Too Large")
            self.close_connection = True
            return
        raw = self.read_body()
        for h in HOSTS_HEADERS:
            if self.headers.get(h) is None:
                self.reply(422, missing(["header", h]))
                return
        if self.headers.get("Content-Encoding") == "gzip":
            try:
                raw = gzip.decompress(raw)
            except (OSError, EOFError):
                self.reply(400, "There was an error parsing the body")
                return
        body = self.dict_body(raw, ("start_time", "profile", "gpid"))
        if body is None:
            return
        try:
            parse_iso(body["start_time"])
        except ValueError:
            self.reply(422, detail(["body", "start_time"],
                                   "invalid datetime format",
                                   "value_error.datetime"))
            return
        if not isinstance(body["profile"], str):
            self.reply(422, detail(["body", "profile"], "str type expected",
                                   "type_error.str"))
            return
        key = self.headers["GPROFILER-API-KEY"]
        svc = sanitize_service(self.headers["GPROFILER-SERVICE-NAME"])
        if key not in ARGS.token or not svc:
            self.reply(400, {"message": "Invalid GPROFILER-SERVICE-NAME header"})
            return
        bad = {"message": "Failed to parse v2 metadata"}
        first = body["profile"].split("\n", 1)[0]
        if not first.startswith("#"):
            self.reply(400, bad)
            return
        try:
            header = json.loads(first[1:])
        except ValueError:
            self.reply(400, bad)
            return
        if not isinstance(header, dict) or \
                not validate_metadata(header.get("metadata")):
            self.reply(400, bad)
            return
        md = header["metadata"]
        gpid = body["gpid"]
        if version_tuple(md["agent_version"]) < (1, 2, 3):
            ret = "0"
        elif gpid in ("", 0, "0"):
            ident = json.dumps([md["hostname"], md["mac_address"],
                                md["agent_version"], md["pid"],
                                md["spawn_time"], int(md["spawn_uptime_ms"])])
            with LOCK:
                if ident not in STATE["processes"]:
                    STATE["processes"][ident] = STATE["next_gpid"]
                    STATE["next_gpid"] += 1
                ret = str(STATE["processes"][ident])
        elif isinstance(gpid, int) or (isinstance(gpid, str) and
                                       gpid.isdigit()):
            ret = str(int(gpid))
        else:
            self.reply(400, bad)
            return
        with LOCK:
            STATE["profiles"].append({
                "service": svc, "gpid_sent": gpid, "gpid": ret,
                "start_time": body["start_time"],
                "end_time": body.get("end_time"),
                "header": header, "profile": body["profile"],
                "env_type": env_type(header.get("containers") or []),
                "query": urllib.parse.parse_qs(url.query),
                "content_encoding": self.headers.get("Content-Encoding"),
                "public_ip": self.headers.get("X-Forwarded-For",
                                              self.client_address[0]),
                "received": time.time(),
            })
            save_state()
        self.reply(200, {"message": "ok", "gpid": ret})

    # -- §5 -------------------------------------------------------------
    def heartbeat(self, url):
        body = self.dict_body(self.read_body())
        if body is None:
            return
        for k in ("ip_address", "hostname", "service_name"):
            if body.get(k) is None:
                self.reply(422, missing(["body", k]))
                return
            if not isinstance(body[k], str):
                self.reply(422, detail(["body", k], "str type expected",
                                       "type_error.str"))
                return
        ts = body.get("timestamp")
        if ts is not None:
            try:
                parse_iso(ts)
            except (ValueError, TypeError):
                self.reply(422, detail(["body", "timestamp"],
                                       "invalid datetime format",
                                       "value_error.datetime"))
                return
        fallback = {"success": True,
                    "message": "Heartbeat received, but failed to check for commands.",
                    "profiling_command": None, "command_id": None}
        try:
            ipaddress.ip_address(body["ip_address"])
            ok = body.get("status", "active") in STATUSES
            lc = body.get("last_command_id")
            ok = ok and (lc is None or is_uuid(lc))
            for k in ("received_command_ids", "executed_command_ids"):
                ids = body.get(k)
                ok = ok and (ids is None or (isinstance(ids, list) and
                                             all(is_uuid(i) for i in ids)))
        except ValueError:
            ok = False
        if not ok:
            with LOCK:
                # Not stored by the backend; kept here for assertions.
                STATE["fallbacks"].append(dict(body, received=time.time()))
            self.reply(200, fallback)
            return
        key = json.dumps([body["hostname"], body["service_name"]])
        with LOCK:
            STATE["heartbeats"].append(dict(body, received=time.time()))
            cmd = STATE["commands"].get(key)
            if cmd is None:
                save_state()
                self.reply(200, {"success": True,
                                 "message": "Heartbeat received. No profiling commands.",
                                 "profiling_command": None,
                                 "command_id": None})
                return
            if cmd["status"] == "pending":
                cmd["status"] = "sent"
                for _ in cmd["request_ids"] or [None]:
                    STATE["executions"][json.dumps(
                        [cmd["command_id"], body["hostname"]])] = "assigned"
            save_state()
            self.reply(200, {
                "success": True,
                "message": "Heartbeat received. New profiling command available.",
                "profiling_command": {"command_type": cmd["command_type"],
                                      "combined_config": cmd["combined_config"]},
                "command_id": cmd["command_id"]})

    # -- §6 -------------------------------------------------------------
    def completion(self, url):
        body, err = self.json_body(self.read_body())
        if err:
            self.reply(422, err)
            return
        for k in ("command_id", "hostname", "status"):
            if not isinstance(body, dict) or body.get(k) is None:
                self.reply(422, missing(["body", k]))
                return
        st = body["status"]
        if st not in ("completed", "failed"):
            self.reply(422, detail(["body", "status"],
                                   "invalid status: %s. Must be 'completed' or 'failed'." % st,
                                   "value_error"))
            return
        cid, host = body["command_id"], body["hostname"]
        if not is_uuid(cid):
            self.reply(500, "Internal server error while processing command completion")
            return
        body["received"] = time.time()
        with LOCK:
            STATE["completions"].append(body)
            ekey = json.dumps([cid, host])
            cur = STATE["executions"].get(ekey)
            if cur is None:
                res = {"success": False,
                       "message": "Command %s not found for host %s" % (cid, host)}
            elif cur != "assigned":
                res = {"success": False,
                       "message": "Command %s for host %s is in status '%s', expected 'assigned'" % (cid, host, cur)}
            else:
                STATE["executions"][ekey] = st
                for c in STATE["commands"].values():
                    if c["command_id"] == cid and c["hostname"] == host:
                        c["status"] = st
                res = {"success": True,
                       "message": "Command completion recorded for %s" % cid}
            body["accepted"] = res["success"]
            save_state()
        self.reply(200, res)

    # -- §8 -------------------------------------------------------------
    def profile_request(self, url):
        body = self.dict_body(self.read_body(), ("service_name", "request_type"))
        if body is None:
            return
        rt = body["request_type"]
        if rt not in ("start", "stop"):
            self.reply(422, detail(["body", "request_type"],
                                   'request_type must be "start" or "stop"',
                                   "value_error"))
            return
        dur = body.get("duration", 60)
        freq = body.get("frequency", 11)
        if dur is not None and (not isinstance(dur, int) or dur <= 0):
            self.reply(422, detail(["body", "duration"],
                                   "Duration must be a positive integer (seconds)",
                                   "value_error"))
            return
        if freq is not None and (not isinstance(freq, int) or freq <= 0):
            self.reply(422, detail(["body", "frequency"],
                                   "Frequency must be a positive integer (Hz)",
                                   "value_error"))
            return
        mode = body.get("profiling_mode", "cpu")
        if mode not in ("cpu", "allocation", "none"):
            self.reply(422, detail(["body", "profiling_mode"],
                                   "profiling_mode must be cpu, allocation or none",
                                   "value_error"))
            return
        level = body.get("stop_level", "process")
        if level not in ("process", "host"):
            self.reply(422, detail(["body", "stop_level"],
                                   "stop_level must be process or host",
                                   "value_error"))
            return
        hosts = body.get("target_hosts")
        if rt == "stop" and level == "process" and not any(
                v for v in (hosts or {}).values()):
            self.reply(422, detail(["body", "__root__"],
                                   'At least one PID must be provided when request_type is "stop" and stop_level is "process"',
                                   "value_error"))
            return
        if rt == "stop" and level == "host" and any(
                v for v in (hosts or {}).values()):
            self.reply(422, detail(["body", "__root__"],
                                   'No PIDs should be provided when request_type is "stop" and stop_level is "host"',
                                   "value_error"))
            return
        if not hosts:
            self.reply(500, "Failed to save profiling request to database")
            return
        svc = body["service_name"]
        req_id = str(uuid.uuid4())
        ids = []
        with LOCK:
            for host, pids in hosts.items():
                key = json.dumps([host, svc])
                cur = STATE["commands"].get(key)
                cfg, ctype = self.translate(body, rt, level, pids, cur)
                cid = str(uuid.uuid4())
                STATE["commands"][key] = {
                    "command_id": cid, "hostname": host, "service_name": svc,
                    "command_type": ctype, "combined_config": cfg,
                    "status": "pending", "request_ids": [req_id],
                    "created_at": now_iso()}
                ids.append(cid)
            save_state()
        n = len(ids)
        msg = "%s profiling request submitted successfully for service '%s'" % (
            "Start" if rt == "start" else "Stop", svc)
        if n != 1:
            msg += " across %d hosts" % n
        eta = None
        if rt == "start":
            eta = (datetime.datetime.now() + datetime.timedelta(
                seconds=dur or 60)).isoformat()
        self.reply(200, {"success": True, "message": msg,
                         "request_id": req_id, "command_ids": ids,
                         "estimated_completion_time": eta})

    @staticmethod
    def translate(body, rt, level, pids, cur):
        if rt == "start":
            cfg = {"command_type": "start",
                   "continuous": bool(body.get("continuous", False)),
                   "duration": body.get("duration", 60),
                   "frequency": body.get("frequency", 11),
                   "profiling_mode": body.get("profiling_mode", "cpu")}
            for k, v in (body.get("additional_args") or {}).items():
                cfg[k] = v
            if pids:
                cfg["pids"] = [int(p) for p in pids]
            return cfg, "start"
        if level == "host":
            return {"stop_level": "host"}, "stop"
        stop = set(int(p) for p in (pids or []))
        if cur and cur["command_type"] == "start" and \
                cur["combined_config"].get("pids"):
            left = [p for p in cur["combined_config"]["pids"]
                    if p not in stop]
            if not left:
                return {"stop_level": "host"}, "stop"
            cfg = dict(cur["combined_config"])
            cfg["pids"] = left
            cfg["stop_level"] = "process"
            return cfg, "start"
        return {"stop_level": "process",
                "pids": [int(p) for p in (pids or [])]}, "stop"

    # -- §7 -------------------------------------------------------------
    def logs(self, url):
        if "Content-Length" not in self.headers:
            self.reply(411, "Length Required")
            return
        if int(self.headers["Content-Length"]) > MAX_CONTENT_LEN:
            self.reply(413, "Request Entity Too Large")
            return
        raw = self.read_body()
        if self.headers.get("Content-Encoding") == "gzip":
            try:
                raw = gzip.decompress(raw)
            except (OSError, EOFError):
                self.reply(400, "There was an error parsing the body")
                return
        body, err = self.json_body(raw)
        if err or not isinstance(body, dict) or "metadata" not in body:
            self.reply(500, "Internal Server Error")
            return
        entries = body.get("logs") or []
        if any(not isinstance(e, dict) or "timestamp" not in e
               for e in entries):
            self.reply(500, "Internal Server Error")
            return
        with LOCK:
            for e in entries:
                e = dict(e)
                e["timestamp_agent"] = e.pop("timestamp")
                e.update(body["metadata"])
                STATE["logs"].append(e)
            # Per batch, for the tests: what the agent's log shipper sent
            # besides the entries (gProfiler's RemoteLogsHandler format).
            STATE.setdefault("log_batches", []).append({
                "received": time.time(),
                "batch_id": body.get("batch_id"),
                "lost_logs_count": body.get("lost_logs_count"),
                "n": len(entries),
                "content_type": self.headers.get("Content-Type"),
                "content_encoding": self.headers.get("Content-Encoding"),
                "application": self.headers.get("X-Application-Name"),
                "token_ok": self.headers.get("X-Token") in (ARGS.token or []),
                "bytes": int(self.headers["Content-Length"]),
            })
        self.reply(201, {"status": "ok"})

    # -- test hooks -----------------------------------------------------
    def fake_fail(self, url):
        body = json.loads(self.read_body() or b"{}")
        with LOCK:
            FAIL["mode"] = str(body.get("mode"))
            FAIL["count"] = body.get("count")
            FAIL["paths"] = body.get("paths")
            FAIL["body"] = body.get("body", "")
            FAIL["status"] = int(body.get("status", 200))
            FAIL["size"] = int(body.get("size", 8 << 20))
        self.reply(200, {"ok": True})

    def fake_clear(self, url):
        self.read_body()
        with LOCK:
            FAIL.update({"mode": None, "count": None, "paths": None})
        self.reply(200, {"ok": True})

    def fake_command(self, url):
        body = json.loads(self.read_body())
        with LOCK:
            key = json.dumps([body["hostname"], body["service_name"]])
            cid = body.get("command_id") or str(uuid.uuid4())
            STATE["commands"][key] = {
                "command_id": cid, "hostname": body["hostname"],
                "service_name": body["service_name"],
                "command_type": body["command_type"],
                "combined_config": body.get("combined_config", {}),
                "status": "pending", "request_ids": [str(uuid.uuid4())],
                "created_at": now_iso()}
            save_state()
        self.reply(200, {"command_id": cid})

    def fake_dump(self, what):
        with LOCK:
            data = json.dumps(STATE[what]).encode()
        self.reply(200, None, raw=data)

    def fake_profiles(self, url):
        self.fake_dump("profiles")

    def fake_heartbeats(self, url):
        self.fake_dump("heartbeats")

    def fake_completions(self, url):
        self.fake_dump("completions")

    def fake_logs(self, url):
        self.fake_dump("logs")

    def fake_log_batches(self, url):
        with LOCK:
            self.reply(200, STATE.get("log_batches", []))

    def fake_requests(self, url):
        self.fake_dump("requests")

    def fake_fallbacks(self, url):
        self.fake_dump("fallbacks")

    def fake_commands(self, url):
        self.fake_dump("commands")


def main():
    global ARGS
    p = argparse.ArgumentParser()
    p.add_argument("--port", type=int, default=0)
    p.add_argument("--bind", default="127.0.0.1")
    p.add_argument("--port-file")
    p.add_argument("--tls", nargs=2, metavar=("CERT", "KEY"))
    p.add_argument("--client-ca", help="require client certificates (mTLS)")
    p.add_argument("--token", action="append", default=[])
    p.add_argument("--basic")
    p.add_argument("--state")
    p.add_argument("--slow", type=float, default=3.0)
    p.add_argument("--latency-scale", type=float,
                   default=float(os.environ.get(
                       "FAKE_STUDIO_LATENCY_SCALE", "1")))
    p.add_argument("-v", "--verbose", action="store_true")
    ARGS = p.parse_args()
    if not ARGS.token:
        ARGS.token = ["test-token"]
    load_state()
    ThreadingHTTPServer.allow_reuse_address = True
    ThreadingHTTPServer.daemon_threads = True
    srv = ThreadingHTTPServer((ARGS.bind, ARGS.port), Handler)
    if ARGS.tls:
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(ARGS.tls[0], ARGS.tls[1])
        if ARGS.client_ca:
            ctx.verify_mode = ssl.CERT_REQUIRED
            ctx.load_verify_locations(ARGS.client_ca)
        srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
    if ARGS.port_file:
        tmp = ARGS.port_file + ".tmp"
        with open(tmp, "w") as f:
            f.write("%d\n" % srv.server_address[1])
        os.replace(tmp, ARGS.port_file)
    try:
        srv.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()

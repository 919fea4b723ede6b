"""Every heartbeat command the Studio UI can send, in sequence on one agent.

Driven by 551-studio-command-table.sh (compressed time) and
550-studio-command-realtime.sh (the reference agent's timing).  Each row is
sent as the UI does (POST /api/metrics/profile_request to the fake
Studio); then: the agent is still running, exactly one completion for the
command with the expected status (and a message naming key and value for
a failure), and the next cycle's profile shows the new settings (for a
failure: the previous ones, still running).  Prints one "R <0|1> what"
line per check for the shell's TAP.

usage: command_table.py BASE_URL SERVICE HOST AGENT_PID DURATION TIMEOUT
       TABLE (compressed|realtime) TARGET_PID
"""
import datetime
import json
import os
import sys
import time
import urllib.request

BASE, SVC, HOST = sys.argv[1], sys.argv[2], sys.argv[3]
AGENT, DUR, TMO = int(sys.argv[4]), int(sys.argv[5]), float(sys.argv[6])
TABLE, TARGET = sys.argv[7], int(sys.argv[8])


def req(path, obj=None):
    data = json.dumps(obj).encode() if obj is not None else None
    r = urllib.request.Request(BASE + path, data=data,
                               headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(r, timeout=30) as f:
        return json.loads(f.read().decode())


def report(ok, what):
    print("R %d %s" % (0 if ok else 1, what.replace("\n", " ")))
    sys.stdout.flush()


def alive():
    try:
        os.kill(AGENT, 0)
    except OSError:
        return False
    with open("/proc/%d/stat" % AGENT) as f:
        return f.read().split(") ")[1][0] != "Z"


def utc(s):
    return datetime.datetime.fromisoformat(s[:26]).replace(
        tzinfo=datetime.timezone.utc).timestamp()


def ra(p):
    return p["header"]["metadata"]["run_arguments"]


def native(p):
    """perf ran in this cycle: its sample count in the header, or kernel
    frames (a 2 s cycle on a loaded host, ASan's, may hold no kernel
    frame although perf sampled)."""
    md = p["header"].get("metadata") or {}
    return int(md.get("perf_samples") or 0) > 0 or "_[k]" in p["profile"]


# The UI's start request with its defaults (docs/specs/studio-api.md §8.1).
UI_PC = {"perf": "enabled_restricted", "async_profiler": "enabled",
         "pyperf": "enabled", "pyspy": "enabled_fallback",
         "rbspy": "enabled", "phpspy": "enabled",
         "dotnet_trace": "enabled", "nodejs_perf": "enabled"}


def start(pc=None, cont=True, dur=None, freq=11, mode="cpu", **extra):
    args = {"enable_perfspect": False, "max_processes": 10,
            "profiler_configs": dict(UI_PC, **(pc or {}))}
    args.update(extra)
    return {"service_name": SVC, "request_type": "start",
            "continuous": cont, "duration": dur or DUR, "frequency": freq,
            "profiling_mode": mode, "target_hosts": {HOST: None},
            "additional_args": args}


STOP = {"service_name": SVC, "request_type": "stop", "stop_level": "host",
        "target_hosts": {HOST: None}}

# (what, request, status, message words, check of the next profile)
ROWS = [
    ("start: the UI's defaults", start(), "completed", None,
     lambda p: ra(p)["perf_mode"] == "fp" and ra(p)["python_mode"] == "auto"
     and ra(p)["continuous"] and ra(p)["frequency"] == 11 and native(p)
     and ra(p)["max_processes_runtime_profiler"] == 10),
    ("profiler_configs.perf disabled", start({"perf": "disabled"}),
     "completed", None,
     lambda p: ra(p)["perf_mode"] == "disabled" and not native(p)),
    ("profiler_configs.perf enabled_aggressive",
     start({"perf": "enabled_aggressive"}), "completed", None,
     lambda p: ra(p)["perf_mode"] == "fp" and native(p)),
    ("profiler_configs.pyperf and pyspy disabled",
     start({"pyperf": "disabled", "pyspy": "disabled"}), "completed", None,
     lambda p: ra(p)["python_mode"] == "disabled" and native(p)),
    ("profiler_configs.pyspy enabled", start({"pyspy": "enabled"}),
     "completed", None, lambda p: ra(p)["python_mode"] == "pyspy"),
    ("profiler_configs.pyperf disabled, pyspy enabled_fallback (wins)",
     start({"pyperf": "disabled"}), "completed", None,
     lambda p: ra(p)["python_mode"] == "auto"),
    ("profiler_configs.async_profiler disabled",
     start({"async_profiler": "disabled"}), "completed", None,
     lambda p: ra(p)["java_mode"] == "disabled"),
    ("profiler_configs.async_profiler {enabled, time: wall}",
     start({"async_profiler": {"enabled": True, "time": "wall"}}),
     "completed", None, lambda p: ra(p)["java_mode"] == "perfmap"),
    ("profiler_configs.phpspy/rbspy/dotnet_trace/nodejs_perf disabled",
     start({"phpspy": "disabled", "rbspy": "disabled",
            "dotnet_trace": "disabled", "nodejs_perf": "disabled"}),
     "completed", None, lambda p: ra(p)["perf_mode"] == "fp" and native(p)),
    ("enable_perfspect true", start(enable_perfspect=True), "completed",
     None, lambda p: ra(p).get("enable_hw_metrics_collection") is True),
    ("frequency 49, all profilers off but perf",
     start({"pyperf": "disabled", "pyspy": "disabled",
            "async_profiler": "disabled"}, freq=49), "completed", None,
     lambda p: ra(p)["frequency"] == 49 and
     p["header"]["sampling_frequency"] == 49 and
     ra(p)["python_mode"] == "disabled" and ra(p)["java_mode"] == "disabled"),
    ("max_processes 5 and pids", start(max_processes=5, pids=[TARGET]),
     "completed", None,
     lambda p: ra(p)["max_processes_runtime_profiler"] == 5 and
     str(ra(p)["pids"]) == str(TARGET)),
    ("unknown profiler in profiler_configs",
     start({"xprof": "enabled"}), "failed", ["profiler_configs", "xprof"],
     lambda p: ra(p)["max_processes_runtime_profiler"] == 5),
    ("unknown profiler_configs.perf value", start({"perf": "turbo"}),
     "failed", ["profiler_configs.perf", "turbo"],
     lambda p: ra(p)["max_processes_runtime_profiler"] == 5),
    ("unknown profiler_configs.pyspy value", start({"pyspy": "sometimes"}),
     "failed", ["profiler_configs.pyspy", "sometimes"],
     lambda p: ra(p)["max_processes_runtime_profiler"] == 5),
    ("profiling_mode with no plugin installed", start(mode="allocation"),
     "failed", ["profiling_mode", "allocation", "no plugin"],
     lambda p: ra(p)["max_processes_runtime_profiler"] == 5),
    ("max_processes 0: no limit, as in gProfiler", start(max_processes=0),
     "completed", None,
     lambda p: ra(p)["max_processes_runtime_profiler"] == 0),
    ("profiling_mode none", start(mode="none"), "completed", None,
     lambda p: p["header"]["profiling_mode"] == "none" and not native(p)),
    ("back to cpu, continuous", start(), "completed", None,
     lambda p: p["header"]["profiling_mode"] == "cpu" and native(p)),
    ("ad-hoc run (continuous false)", start(cont=False), "completed", None,
     lambda p: p["header"]["flamegraph_html"] is not None),
    ("the continuous run resumes after the ad-hoc one", None, None, None,
     lambda p: ra(p)["continuous"] and p["header"]["flamegraph_html"] is None),
    ("stop", STOP, "completed", None, None),
    ("start after stop", start({"perf": "disabled"}), "completed", None,
     lambda p: ra(p)["perf_mode"] == "disabled"),
]

if TABLE == "realtime":
    # The reference agent's timing: 30 s heartbeats, the UI's 60 s cycles;
    # start -> change plugins -> ad-hoc -> stop -> start.
    pick = ("start: the UI's defaults", "profiler_configs.perf disabled",
            "ad-hoc run (continuous false)",
            "the continuous run resumes after the ad-hoc one", "stop",
            "start after stop")
    ROWS = [r for r in ROWS if r[0] in pick]


def wait(pred, tmo):
    end = time.time() + tmo
    while time.time() < end:
        v = pred()
        if v:
            return v
        time.sleep(0.3)
    return pred()


def main():
    for what, body, status, words, check in ROWS:
        t0 = time.time()
        cid = None
        if body is not None:
            cid = req("/api/metrics/profile_request", body)["command_ids"][0]
            # An ad-hoc run is reported when its cycle has ended.
            comp = wait(lambda: [c for c in req("/_fake/completions")
                                 if c["command_id"] == cid],
                        TMO + (DUR + 10 if not body.get("continuous", True)
                               else 0))
            time.sleep(0.5)     # a second completion would come now
            comp = [c for c in req("/_fake/completions")
                    if c["command_id"] == cid]
            ok = (len(comp) == 1 and comp[0]["status"] == status and
                  comp[0]["accepted"])
            msg = comp[0]["error_message"] if comp else None
            if ok and words:
                ok = all(w in (msg or "") for w in words)
            report(ok, "%s: one completion, %s%s (%s)" % (
                what, status, " naming %s" % "/".join(words) if words else "",
                [(c["status"], c["error_message"]) for c in comp]))
            tc = comp[0]["received"] if comp else time.time()
        else:
            tc = t0
        report(alive(), "%s: the agent keeps running" % what)
        if check is None:
            # stop: nothing more is profiled.
            n = len(req("/_fake/profiles"))
            time.sleep(DUR + 3)
            later = [p for p in req("/_fake/profiles")[n:]
                     if utc(p["header"]["start_time"]) >= tc]
            report(not later, "%s: no cycle after it" % what)
            continue
        if status == "failed":
            # The run in force goes on: a cycle after the failure.
            tc = time.time()
        adhoc = body is not None and not body.get("continuous", True)

        def nxt():
            ps = req("/_fake/profiles")
            if adhoc:
                # Its one cycle ends before its completion is sent.
                ps = [p for p in ps if not ra(p)["continuous"] and
                      utc(p["header"]["start_time"]) >= t0 - 1.5]
                return ps if ps else None
            ps = [p for p in ps if utc(p["header"]["end_time"]) > tc and
                  (utc(p["header"]["start_time"]) >= tc - 1.5 or
                   status == "failed")]
            return ps[0] if ps else None
        p = wait(nxt, DUR * 2 + TMO)
        if adhoc:
            report(p is not None and len(p) == 1,
                   "%s: exactly one ad-hoc cycle" % what)
            p = p[0] if p else None
        good = False
        if p is not None:
            try:
                good = bool(check(p))
            except (KeyError, TypeError):
                good = False
        report(good, "%s: the next cycle's profile %s (%s)" % (
            what, "shows the previous settings, still running"
            if status == "failed" else "shows the new settings",
            "none" if p is None else
            {k: ra(p).get(k) for k in ("perf_mode", "python_mode",
                                        "java_mode", "frequency",
                                        "continuous", "pids",
                                        "max_processes_runtime_profiler")}))


main()

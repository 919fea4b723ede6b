"""One run owner for every entry point: each command is compared with a
fresh command-line start.

Driven by 490-studio-supervisor.sh.  For each row, a heartbeat command is
sent to the running agent (H) and, at the same time, a fresh agent is
started with the command line a user would write for the same settings
(one flag per combined_config key).  Both upload to the fake Studio; the
check: the first profile of each after the command has the same
run_arguments (but for the connection settings, which differ by design)
and the plugins loaded for it (the agents' "plugins loaded" lines) are the
same set.  Rows go from the UI's defaults to every key and back to the
defaults (after a command that reloaded the plugins), so a reload that
loses a plugin or keeps a stale option fails a row; two rows also check
a log line (a replaced run's partial cycle; PerfSpect in mode none).
Prints "R <0|1> what" lines for the shell's TAP.

usage: supervisor_table.py BASE SVC HOST TOKEN GP_BIN PLUGIN_DIR H_LOG TMP
       TARGET_PID PERFSPECT
"""
import datetime
import json
import os
import re
import signal
import subprocess
import sys
import time
import urllib.request

(BASE, SVC, HOST, TOKEN, GP_BIN, PLUGIN_DIR, HLOG, TMP, TARGET,
 PERFSPECT) = sys.argv[1:11]
TMO = float(os.environ.get("ROW_TIMEOUT", "25"))

# Settings of the connection and the host, not of the run: they differ
# between a heartbeat agent and an uploading one by design.
CONNECTION = {"enable_heartbeat_server", "api_server", "heartbeat_interval",
              "service_name", "spool_dir", "state_dir", "upload_results",
              "server_host", "log_file", "pid_file", "perfspect_path"}


def req(path, obj=None):
    data = json.dumps(obj).encode() if obj is not None else None
    r = urllib.request.Request(BASE + path, data=data,
                               headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(r, timeout=30) as f:
        return json.loads(f.read().decode())


def report(ok, what):
    print("R %d %s" % (0 if ok else 1, what.replace("\n", " ")))
    sys.stdout.flush()


def utc(s):
    return datetime.datetime.fromisoformat(s[:26]).replace(
        tzinfo=datetime.timezone.utc).timestamp()


def ra(p):
    return p["header"]["metadata"]["run_arguments"]


UI_PC = {"perf": "enabled_restricted", "async_profiler": "enabled",
         "pyperf": "enabled", "pyspy": "enabled_fallback",
         "rbspy": "enabled", "phpspy": "enabled",
         "dotnet_trace": "enabled", "nodejs_perf": "enabled"}


def start(pc=None, cont=True, dur=2, freq=11, mode="cpu", **extra):
    args = {"enable_perfspect": False, "max_processes": 10,
            "profiler_configs": dict(UI_PC, **(pc or {}))}
    args.update(extra)
    return {"service_name": SVC, "request_type": "start",
            "continuous": cont, "duration": dur, "frequency": freq,
            "profiling_mode": mode, "target_hosts": {HOST: None},
            "additional_args": args}


# The flags a user writes for the UI's defaults: continuous is
# --continuous without a flame graph (an ad-hoc run writes one, §12 #10),
# perf enabled_restricted is --skip-system-profilers-above 600, pyspy
# enabled_fallback is --python-mode auto, async_profiler enabled is cpu,
# max_processes 10.
UI_FLAGS = ["-d", "2", "-f", "11", "--mode", "cpu", "--continuous",
            "--no-flamegraph",
            "--max-processes-runtime-profiler", "10",
            "--skip-system-profilers-above", "600", "--python-mode", "auto",
            "--java-async-profiler-mode", "cpu"]


def flags(**kv):
    out = list(UI_FLAGS)
    for k, v in kv.items():
        k = ("-" if len(k) == 1 else "--") + k.replace("_", "-")
        if k in out:
            i = out.index(k)
            if v is None:
                del out[i:i + 2]
            else:
                out[i + 1] = v
        elif v is not None:
            out += [k, v]
    return out


DEFAULTS = ("the UI's defaults", start(), UI_FLAGS)
ROWS = [
    DEFAULTS,
    # enable_perfspect: the perfspect plugin is loaded (a reload).
    # The run it replaces says what became of its partial cycle.
    ("enable_perfspect true", start(enable_perfspect=True),
     UI_FLAGS + ["--enable-hw-metrics-collection"],
     r"replaces the continuous run: the cycle in progress \([0-9.]+ s of "
     r"2 s collected\) is dropped, not uploaded"),
    ("back to the defaults after a reload",) + DEFAULTS[1:],
    # duration, frequency, pids, max_processes and profiler_configs'
    # per-runtime switches, all at once.
    ("duration, frequency, pids, max_processes, profiler_configs",
     start({"perf": "enabled_aggressive", "pyspy": "enabled",
            "async_profiler": "disabled", "phpspy": "disabled",
            "rbspy": "disabled", "nodejs_perf": "disabled"},
           dur=3, freq=49, pids=[int(TARGET)], max_processes=5),
     flags(d="3", f="49", skip_system_profilers_above="1500",
           python_mode="pyspy", max_processes_runtime_profiler="5",
           java_async_profiler_mode=None, java_mode="disabled",
           php_mode="disabled", ruby_mode="disabled",
           nodejs_mode="disabled", pids=TARGET)),
    ("profiler_configs: python off, async_profiler wall clock",
     start({"pyperf": "disabled", "pyspy": "disabled",
            "async_profiler": {"enabled": True, "time": "wall"}}),
     flags(python_mode="disabled", java_async_profiler_mode="itimer")),
    ("profiler_configs.perf disabled, max_processes 0",
     start({"perf": "disabled"}, max_processes=0),
     flags(skip_system_profilers_above=None,
           max_processes_runtime_profiler=None) +
     ["--perf-mode", "disabled"]),
    ("back to the defaults after perf was off",) + DEFAULTS[1:],
    # -f is refused with --mode none; profiler_configs name plugins that
    # do not serve mode none, which a command leaves alone.
    ("profiling_mode none", start(mode="none"),
     flags(mode="none", f=None, python_mode=None)),
    ("profiling_mode none with enable_perfspect",
     start(mode="none", enable_perfspect=True),
     flags(mode="none", f=None, python_mode=None) +
     ["--enable-hw-metrics-collection"],
     r"enable_perfspect with profiling_mode none: PerfSpect is not run"),
    ("continuous false (ad-hoc)", start(cont=False),
     [x for x in UI_FLAGS if x not in ("--continuous", "--no-flamegraph")]
     + ["--flamegraph"]),
]
def wait(pred, tmo):
    end = time.time() + tmo
    while time.time() < end:
        v = pred()
        if v:
            return v
        time.sleep(0.3)
    return pred()


def loaded_lines(path, since=0):
    """The "plugins loaded" lines of a log, in order: those before offset
    `since` and those after it."""
    try:
        with open(path, errors="replace") as f:
            text = f.read()
    except OSError:
        return [], []
    pat = r"plugins loaded for mode (\S+): (.*)"
    return re.findall(pat, text[:since]), re.findall(pat, text[since:])


def in_force(path, since):
    """The plugins loaded for the command sent when the log was `since`
    bytes long: the first set loaded after it (the command reloaded), or
    the last one before it (it kept the loaded set)."""
    before, after = loaded_lines(path, since)
    if after:
        return after[0]
    return before[-1] if before else None


def plugin_set(line):
    return (line[0], frozenset(x.strip() for x in line[1].split(",")))


def fresh(n, argv):
    svc = "fresh-%d" % n
    log = os.path.join(TMP, "fresh-%d.log" % n)
    env = dict(os.environ, GPROFILER_LOCK_NAME="gptest-sv-%d-%d" %
               (os.getpid(), n))
    cmd = [GP_BIN, "--plugin-dir", PLUGIN_DIR, "-u", "--server-host", BASE,
           "--token", TOKEN, "--service-name", svc, "--spool-dir",
           os.path.join(TMP, "spool-%d" % n), "--state-dir",
           os.path.join(TMP, "state-%d" % n), "--perfspect-path",
           PERFSPECT] + argv
    with open(log, "w") as f:
        f.write("# " + " ".join(cmd) + "\n")
        f.flush()
        proc = subprocess.Popen(cmd, stdout=f, stderr=subprocess.STDOUT,
                                env=env)
    return svc, log, proc


def stop(proc):
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def main():
    for n, row in enumerate(ROWS):
        what, body, argv = row[:3]
        logpat = row[3] if len(row) > 3 else None
        cont = body["continuous"]
        t0 = time.time()
        svc, flog, proc = fresh(n, argv)
        since = os.path.getsize(HLOG)
        cid = req("/api/metrics/profile_request", body)["command_ids"][0]
        comp = wait(lambda: [c for c in req("/_fake/completions")
                             if c["command_id"] == cid],
                    TMO + (0 if cont else 10))
        report(bool(comp) and comp[0]["status"] == "completed",
               "%s: the command completed (%s)" % (what, comp))

        def first(service, after, adhoc):
            ps = [p for p in req("/_fake/profiles") if p["service"] ==
                  service and utc(p["header"]["start_time"]) >= after - 1.5
                  and (not adhoc or not ra(p)["continuous"])]
            return ps[0] if ps else None
        # H: the first cycle of the command's run; an ad-hoc run's one
        # cycle ends before its completion.  The command came with the
        # first heartbeat after it was sent: a cycle of the run it
        # replaced that began later would have ended after the command
        # arrived (1 s heartbeats, 2 s cycles) and was dropped.
        hbs = [h["received"] for h in req("/_fake/heartbeats")
               if h["received"] >= t0]
        thb = min(hbs) if hbs else time.time()
        hp = wait(lambda: first(SVC, thb + 1.5, not cont), TMO)
        fp = wait(lambda: first(svc, t0, False), TMO)
        hl, fl = in_force(HLOG, since), in_force(flog, 0)
        stop(proc)
        if hp is None or fp is None:
            report(False, "%s: a profile of each (command: %s, command "
                   "line: %s; see %s)" % (what, hp is not None,
                                          fp is not None, flog))
            continue
        ha, fa = ra(hp), ra(fp)
        diff = {k: (ha.get(k), fa.get(k)) for k in set(ha) | set(fa)
                if k not in CONNECTION and ha.get(k) != fa.get(k)}
        report(not diff, "%s: the same effective options as a fresh start "
               "with %s (differences, command vs command line: %s)" %
               (what, " ".join(argv), diff))
        hs = plugin_set(hl) if hl else None
        fs = plugin_set(fl) if fl else None
        report(hs is not None and hs == fs,
               "%s: the same plugins as the fresh start (command: %s; "
               "command line: %s)" % (what, hl, fl))
        if logpat is not None:
            with open(HLOG, errors="replace") as f:
                f.seek(since)
                said = re.search(logpat, f.read())
            report(said is not None, "%s: the agent's log says /%s/" %
                   (what, logpat))
        report(hp["header"].get("profiling_mode") ==
               fp["header"].get("profiling_mode") and
               hp["header"].get("sampling_frequency") ==
               fp["header"].get("sampling_frequency"),
               "%s: the same mode and frequency in the profile headers "
               "(%s/%s vs %s/%s)" % (
                   what, hp["header"].get("profiling_mode"),
                   hp["header"].get("sampling_frequency"),
                   fp["header"].get("profiling_mode"),
                   fp["header"].get("sampling_frequency")))


main()

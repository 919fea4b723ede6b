#!/usr/bin/env python3
# The flame graph page in a real browser: `gprofiler flamegraph` renders a
# known .col, headless Chromium (driven over --remote-debugging-pipe, stdlib
# only) loads it, and the checks read what the page drew: frame widths,
# pixels, search highlighting and percentage, click-to-zoom, grouping by
# container, hostile names shown as text, bad-line report, empty profile,
# and a 100k-stack profile's load time.  A screenshot is left in the build
# tree (tests/integration/flamegraph.png) for a person to look at.
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

n = 0
failed = 0


def ok(cond, what, diag=None):
    global n, failed
    n += 1
    print("%s %d - %s" % ("ok" if cond else "not ok", n, what))
    if not cond:
        failed += 1
        if diag is not None:
            print("# " + str(diag).replace("\n", "\n# "))
    sys.stdout.flush()
    return cond


def skip_all(why):
    print("1..0 # SKIP " + why)
    sys.exit(0)


class Browser:
    """Chromium over the CDP pipe: fd 3 to the browser, fd 4 from it."""

    def __init__(self, profile_dir):
        exe = shutil.which("chromium") or shutil.which("chromium-browser")
        to_r, to_w = os.pipe()
        from_r, from_w = os.pipe()
        # The child sees our to_r as its fd 3 and from_w as its fd 4.
        # (Copies first: the pipe may already sit on fd 3 or 4.)
        def child_fds():
            a, b = os.dup(to_r), os.dup(from_w)
            os.dup2(a, 3)
            os.dup2(b, 4)
        self.proc = subprocess.Popen(
            [exe, "--headless", "--no-sandbox", "--disable-gpu",
             "--disable-background-networking", "--disable-component-update",
             "--disable-sync", "--no-first-run", "--hide-scrollbars",
             "--user-data-dir=" + profile_dir, "--remote-debugging-pipe",
             "about:blank"],
            close_fds=False, preexec_fn=child_fds,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(to_r)
        os.close(from_w)
        self.w = os.fdopen(to_w, "wb", buffering=0)
        self.r = os.fdopen(from_r, "rb", buffering=0)
        self.buf = b""
        self.next_id = 0
        self.session = None

    def _read_msg(self):
        while b"\0" not in self.buf:
            chunk = self.r.read(65536)
            if not chunk:
                raise RuntimeError("browser closed the pipe")
            self.buf += chunk
        msg, self.buf = self.buf.split(b"\0", 1)
        return json.loads(msg)

    def call(self, method, params=None, session=True):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if session and self.session:
            msg["sessionId"] = self.session
        self.w.write(json.dumps(msg).encode() + b"\0")
        while True:
            m = self._read_msg()
            if m.get("id") == self.next_id:
                if "error" in m:
                    raise RuntimeError("%s: %s" % (method, m["error"]))
                return m.get("result", {})

    def attach(self):
        targets = self.call("Target.getTargets", session=False)["targetInfos"]
        page = [t for t in targets if t["type"] == "page"][0]
        self.session = self.call("Target.attachToTarget",
                                 {"targetId": page["targetId"],
                                  "flatten": True}, session=False)["sessionId"]
        self.call("Emulation.setDeviceMetricsOverride",
                  {"width": 1000, "height": 700, "deviceScaleFactor": 1,
                   "mobile": False})

    def js(self, expr):
        r = self.call("Runtime.evaluate", {"expression": expr,
                                           "returnByValue": True,
                                           "awaitPromise": True})
        if "exceptionDetails" in r:
            raise RuntimeError("js: %s: %s" % (expr, r["exceptionDetails"]))
        return r["result"].get("value")

    def open(self, path, timeout=30):
        t0 = time.monotonic()
        self.call("Page.navigate", {"url": "file://" + path})
        while time.monotonic() - t0 < timeout:
            try:
                if self.js("document.readyState === 'complete' && "
                           "!!(window.gpFlamegraph && window.gpFlamegraph.ready)"):
                    return time.monotonic() - t0
                if self.js("document.readyState === 'complete' && "
                           "!document.getElementById('fg-empty').hidden"):
                    return time.monotonic() - t0
            except RuntimeError:
                pass
            time.sleep(0.05)
        raise RuntimeError("page did not load: " + path)

    def mouse(self, kind, x, y):
        self.call("Input.dispatchMouseEvent",
                  {"type": kind, "x": x, "y": y, "button": "left",
                   "clickCount": 1 if kind != "mouseMoved" else 0})

    def click(self, x, y):
        self.mouse("mouseMoved", x, y)
        self.mouse("mousePressed", x, y)
        self.mouse("mouseReleased", x, y)

    def screenshot(self, path):
        import base64
        data = self.call("Page.captureScreenshot", {"format": "png"})["data"]
        with open(path, "wb") as f:
            f.write(base64.b64decode(data))

    def close(self):
        try:
            self.call("Browser.close", session=False)
        except Exception:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


HOSTILE = "<script>window.pwned=1</script>"
HOSTILE2 = '<img src=x onerror="window.pwned=2">'
COL = "\n".join([
    '# {"application_metadata_enabled": true, "profiling_mode": "cpu", '
    '"metadata": {"hostname": "testhost"}}',
    "0;;python3;main_[p];compute_[p];matmul_[p] 60",
    "0;;python3;main_[p];io_wait_[p];read_[k] 20",
    "1;web;nginx;ngx_worker;epoll_wait_[k] 15",
    "1;web;nginx;" + HOSTILE + ";x 4",
    "0;;bash;" + HOSTILE2 + " 1",
    "this line is broken",
    "0;;bash;also broken x7",
])
TOTAL = 100


def render(gp, col, out):
    with open(out + ".col", "w", encoding="utf-8", errors="surrogateescape") as f:
        f.write(col)
    r = subprocess.run([gp, "flamegraph", out + ".col", "-o", out],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    return r.returncode, r.stderr.decode(errors="replace")


def frames(b):
    return b.js("window.gpFlamegraph.drawn()")


def find(fs, name):
    return [f for f in fs if f["name"] == name]


def pixel(b, x, y):
    return b.js("Array.from(document.getElementById('fg-canvas')"
                ".getContext('2d').getImageData(%d, %d, 1, 1).data)" % (x, y))


def canvas_top(b):
    return b.js("document.getElementById('fg-canvas')"
                ".getBoundingClientRect().top")


def center(b, f):
    return f["x"] + f["w"] / 2, canvas_top(b) + f["depth"] * 18 + 9


def near(a, b, tol=1.01):
    return abs(a - b) <= tol


def check_layout(b, W):
    fs = frames(b)
    ok(W > 900, "canvas is the page width", W)
    for name, value, depth in (("all", 100, 0), ("python3", 80, 1),
                               ("nginx", 19, 1), ("bash", 1, 1),
                               ("matmul", 60, 4), ("read", 20, 4),
                               ("epoll_wait", 15, 3)):
        f = find(fs, name)
        ok(len(f) == 1 and f[0]["depth"] == depth and
           near(f[0]["w"], W * value / TOTAL),
           "%s drawn at depth %d, width %d%% of the page" % (name, depth, value),
           f)
    ok(not any(f["name"].endswith("]") and "_[" in f["name"] for f in fs),
       "suffixes stripped from displayed names",
       [f["name"] for f in fs])
    kinds = dict((f["name"], f["kind"]) for f in fs)
    ok(kinds.get("matmul") == "python" and kinds.get("read") == "kernel" and
       kinds.get("ngx_worker") == "native", "kinds from suffixes", kinds)
    ok(not find(fs, "0") and not find(fs, "1") and not find(fs, ""),
       "index and container frames cut in the default view")
    m = find(fs, "matmul")[0]
    x, y = center(b, m)
    px = pixel(b, x, y - canvas_top(b))
    ok(px[2] > px[0] and px[3] == 255, "matmul painted in the Python blue",
       px)
    k = find(fs, "read")[0]
    x, y = center(b, k)
    px = pixel(b, x, y - canvas_top(b))
    ok(px[0] > px[2], "read painted in the kernel orange", px)


def check_search(b, W):
    b.js("document.getElementById('fg-search').focus()")
    b.call("Input.insertText", {"text": "WAIT"})
    time.sleep(0.5)
    text = b.js("window.gpFlamegraph.matchText()")
    ok("35.00%" in text and "35 of 100" in text,
       "search reports 35% matched (io_wait 20 + epoll_wait 15)", text)
    fs = frames(b)
    matched = sorted(f["name"] for f in fs if f["matched"])
    ok(matched == ["epoll_wait", "io_wait"], "exactly the matching frames "
       "are highlighted", matched)
    f = find(fs, "io_wait")[0]
    x, y = center(b, f)
    px = pixel(b, x, y - canvas_top(b))
    ok(px[:3] == [230, 0, 230], "highlight colour painted", px)
    f = find(fs, "matmul")[0]
    x, y = center(b, f)
    px = pixel(b, x, y - canvas_top(b))
    ok(px[:3] != [230, 0, 230], "non-matching frame not highlighted", px)
    r = b.js("window.gpFlamegraph.search('main').percent")
    ok(near(r, 80.0, 0.001), "nested matches counted once (main: 80%)", r)
    b.click(*b.js("(function(){var r=document.getElementById('fg-clear')"
                  ".getBoundingClientRect();return [r.x+r.width/2,"
                  "r.y+r.height/2];})()"))
    ok(not any(f["matched"] for f in frames(b)), "clear removes highlights")


def check_zoom(b, W):
    f = find(frames(b), "python3")[0]
    b.click(*center(b, f))
    ok(b.js("window.gpFlamegraph.zoomed()") == "python3",
       "click zooms into python3")
    fs = frames(b)
    m = find(fs, "matmul")
    ok(len(m) == 1 and near(m[0]["w"], W * 60 / 80),
       "zoomed: matmul takes 60/80 of the width", m)
    ok(not find(fs, "nginx"), "zoomed: siblings not drawn")
    a = find(fs, "all")
    ok(len(a) == 1 and near(a[0]["w"], W), "ancestors stay drawn full width")
    b.click(*b.js("(function(){var r=document.getElementById('fg-reset')"
                  ".getBoundingClientRect();return [r.x+r.width/2,"
                  "r.y+r.height/2];})()"))
    ok(b.js("window.gpFlamegraph.zoomed()") == "all", "reset zoom")
    ok(len(find(frames(b), "nginx")) == 1, "after reset nginx is back")


def check_hostile(b):
    ok(b.js("window.pwned === undefined"), "hostile frame names did not run")
    ok(b.js("document.querySelectorAll('script').length") == 2 and
       b.js("document.querySelectorAll('img').length") == 0,
       "no element created from frame names")
    fs = frames(b)
    h = find(fs, HOSTILE)
    ok(len(h) == 1, "the <script> frame is drawn as its text", [f["name"] for f in fs])
    ok(len(find(fs, HOSTILE2)) == 1, "the <img onerror> frame is drawn as text")
    b.mouse("mouseMoved", *center(b, h[0]))
    tip = b.js("document.getElementById('fg-tip').textContent")
    ok(tip is not None and HOSTILE in tip and "samples: 4" in tip,
       "tooltip shows the name as text with its samples", tip)
    ok("4.00%" in (tip or ""), "tooltip shows the percentage", tip)


def check_group(b, W):
    b.click(*b.js("(function(){var r=document.getElementById('fg-group')"
                  ".getBoundingClientRect();return [r.x+r.width/2,"
                  "r.y+r.height/2];})()"))
    fs = frames(b)
    c = find(fs, "container: web")
    nc = find(fs, "(no container)")
    ok(len(c) == 1 and c[0]["depth"] == 1 and near(c[0]["w"], W * 0.19),
       "group by container: web holds 19%", c)
    ok(len(nc) == 1 and near(nc[0]["w"], W * 0.81),
       "group by container: (no container) holds 81%", nc)
    ok(len(find(fs, "nginx")) == 1 and find(fs, "nginx")[0]["depth"] == 2,
       "grouped: comm one level down")


def main():
    gp = os.environ.get("GP_BIN")
    builddir = os.environ.get("top_builddir", ".")
    if not (shutil.which("chromium") or shutil.which("chromium-browser")):
        skip_all("chromium not installed (apt-get install chromium)")
    if not gp or not os.access(gp, os.X_OK):
        skip_all("GP_BIN not built")
    tmp = tempfile.mkdtemp(prefix="gpfg.")
    b = None
    try:
        page = os.path.join(tmp, "fg.html")
        rc, err = render(gp, COL, page)
        if not ok(rc == 0 and os.path.exists(page),
                  "gprofiler flamegraph renders the .col", err):
            return
        with open(page, encoding="utf-8") as f:
            html = f.read()
        ok("http://" not in html and "https://" not in html and
           "src=" not in html.split("fg-data")[0],
           "page references nothing on the network")
        b = Browser(os.path.join(tmp, "profile"))
        b.attach()
        b.open(page)
        W = b.js("window.gpFlamegraph.width()")
        head = b.js("document.getElementById('fg-head').textContent")
        ok("host: testhost" in head and "mode: cpu" in head and
           "total samples: 100" in head, "header shows host, mode, total",
           head)
        warn = b.js("document.getElementById('fg-warn').textContent")
        ok(warn is not None and "2 malformed line(s)" in warn and "line 7" in warn
           and "line 8" in warn, "bad lines reported with line numbers", warn)
        check_layout(b, W)
        check_search(b, W)
        check_zoom(b, W)
        check_hostile(b)
        b.js("window.gpFlamegraph.search('wait')")
        b.mouse("mouseMoved", 5, 5)
        shot = os.path.join(builddir, "tests", "integration", "flamegraph.png")
        os.makedirs(os.path.dirname(shot), exist_ok=True)
        b.screenshot(shot)
        print("# screenshot: " + os.path.abspath(shot))
        b.js("window.gpFlamegraph.search('')")
        check_group(b, W)

        empty = os.path.join(tmp, "empty.html")
        render(gp, '# {"profiling_mode": "cpu"}', empty)
        b.open(empty)
        ok(b.js("!document.getElementById('fg-empty').hidden && "
                "document.getElementById('fg-empty').textContent") ==
           "This profile has no samples.", "empty profile says so")

        big = os.path.join(tmp, "big.html")
        lines = ['# {"application_metadata_enabled": true}']
        for i in range(100000):
            lines.append("0;;app%d;main;f%d;g%d;h%d_[k] %d" %
                         (i % 50, i % 997, i, i % 13, 1 + i % 5))
        t0 = time.monotonic()
        rc, err = render(gp, "\n".join(lines), big)
        ok(rc == 0, "100k distinct stacks rendered in %.1fs" %
           (time.monotonic() - t0), err)
        secs = b.open(big, timeout=60)
        ok(secs < 10, "100k-stack page ready in %.1fs (< 10s)" % secs)
        nf = len(frames(b))
        ok(0 < nf < 20000, "only visible, wide-enough frames drawn (%d)" % nf)
    finally:
        if b is not None:
            b.close()
        shutil.rmtree(tmp, ignore_errors=True)


main()
print("1..%d" % n)
sys.exit(1 if failed else 0)

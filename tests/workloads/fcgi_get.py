#!/usr/bin/env python3
"""One FastCGI GET request to php-fpm over a unix socket, without a web
server (tests/integration/760-php-fpm.sh).
Usage: fcgi_get.py SOCKET SCRIPT_FILENAME QUERY_STRING"""
import socket
import struct
import sys

FCGI_BEGIN_REQUEST, FCGI_PARAMS, FCGI_STDIN = 1, 4, 5


def record(kind, body):
    return struct.pack("!BBHHBx", 1, kind, 1, len(body), 0) + body


def pair(name, value):
    name, value = name.encode(), value.encode()
    size = bytes([len(value)]) if len(value) < 128 else \
        struct.pack("!I", len(value) | 0x80000000)
    return bytes([len(name)]) + size + name + value


def main():
    path, script, query = sys.argv[1:4]
    params = [("SCRIPT_FILENAME", script), ("SCRIPT_NAME", "/hot.php"),
              ("REQUEST_METHOD", "GET"), ("QUERY_STRING", query),
              ("SERVER_PROTOCOL", "HTTP/1.1"),
              ("GATEWAY_INTERFACE", "CGI/1.1")]
    s = socket.socket(socket.AF_UNIX)
    s.connect(path)
    s.sendall(record(FCGI_BEGIN_REQUEST, struct.pack("!HB5x", 1, 0)) +
              record(FCGI_PARAMS, b"".join(pair(k, v) for k, v in params)) +
              record(FCGI_PARAMS, b"") + record(FCGI_STDIN, b""))
    out = b""
    while True:
        data = s.recv(65536)
        if not data:
            break
        out += data
    sys.stdout.write("%d bytes\n" % len(out))


if __name__ == "__main__":
    main()

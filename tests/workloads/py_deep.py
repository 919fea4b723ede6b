"""Python reader workload: a busy loop at the bottom of a deep recursion
(depth from argv[1], default 150)."""
import sys


def spin():  # DEF:spin
    x = 0
    while True:
        x += 1  # BUSY:spin


def recurse(n):  # DEF:recurse
    if n <= 0:
        spin()
    recurse(n - 1)


depth = int(sys.argv[1]) if len(sys.argv) > 1 else 150
sys.setrecursionlimit(depth + 100)
print("ready", flush=True)
recurse(depth)

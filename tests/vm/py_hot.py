"""The VM tier's Python workload: a busy loop under two named functions,
run with `python3 -S` (no site, so only the start-up modules are needed)."""
import sys
import time


def vm_py_hot(n):
    s = 0
    for i in range(n):
        s += i * i
    return s


def vm_py_outer(end):
    while time.monotonic() < end:
        vm_py_hot(10000)


vm_py_outer(time.monotonic() + float(sys.argv[1] if len(sys.argv) > 1 else 30))

"""A share of a CPU in read(2) of /dev/zero, until killed.

Tests that prove the BPF sampler runs by its kernel frames start this: at
11 Hz a short cycle on a host busy only in user space can hold none.
argv[1]: the share, a third by default; long cycles need less (at 11 Hz a
60 s cycle holds about 30 samples of a 5% share).
"""
import os
import sys
import time

share = float(sys.argv[1]) if len(sys.argv) > 1 else 1 / 3
rest = 0.006 * (1 - share) / share

fd = os.open("/dev/zero", os.O_RDONLY)
while True:
    end = time.monotonic() + 0.006
    while time.monotonic() < end:
        os.read(fd, 1 << 20)
    time.sleep(rest)

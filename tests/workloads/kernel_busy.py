"""About a third of a CPU in read(2) of /dev/zero, until killed.

Tests that prove the BPF sampler runs by its kernel frames start this: at
11 Hz a short cycle on a host busy only in user space can hold none.
"""
import os
import time

fd = os.open("/dev/zero", os.O_RDONLY)
while True:
    end = time.monotonic() + 0.006
    while time.monotonic() < end:
        os.read(fd, 1 << 20)
    time.sleep(0.012)

#!/usr/bin/env python3
# The workload of bench/many_maps.sh and bench/java_others.sh: N processes,
# each with M shared anonymous mappings (they do not merge: one line of
# /proc/PID/maps each, as a large service has thousands), busy 1 ms in 100
# so the system profiler samples every one each cycle; for SECONDS.
#
#	python3 bench/maps_many.py N M SECONDS
import mmap
import os
import sys
import time

n, m, secs = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
kids = []
for _ in range(n):
    pid = os.fork()
    if pid == 0:
        maps = [mmap.mmap(-1, 4096) for _ in range(m)]
        end = time.time() + secs
        while time.time() < end:
            t = time.perf_counter() + 0.001
            while time.perf_counter() < t:
                pass
            time.sleep(0.1)
        os._exit(0)
    kids.append(pid)
for k in kids:
    os.waitpid(k, 0)

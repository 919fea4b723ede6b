"""Python calling native code, for mixed-stack fidelity (bench/fidelity).

    py_native.py ctypes LIB SECONDS   py_ctypes_caller() calls LIB's
                                      native_spin() through ctypes, in a loop
    py_native.py read SECONDS         py_read_loop() reads /dev/zero with
                                      os.read in 64 KiB chunks, in a loop
"""
import ctypes
import os
import sys
import time


def py_ctypes_caller(lib, end):
    while time.time() < end:
        lib.native_spin(200000)


def py_read_loop(end):
    fd = os.open('/dev/zero', os.O_RDONLY)
    x = 0
    while time.time() < end:
        x += len(os.read(fd, 65536))
        for _ in range(200):
            x += 1
    os.close(fd)


print('ready', flush=True)
if sys.argv[1] == 'ctypes':
    py_ctypes_caller(ctypes.CDLL(sys.argv[2]), time.time() +
                     float(sys.argv[3]))
else:
    py_read_loop(time.time() + float(sys.argv[2]))

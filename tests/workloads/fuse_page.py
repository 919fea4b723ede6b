# A process with one page of a file mapped and never touched: a reader of
# its memory there faults the page in from the file's filesystem (a FUSE
# server's, in the tests).  Writes "PID ADDRESS" (hex) to READY_FILE, then
# sleeps.  map_page is shared with py_fuse_name.py.
#
#	python3 fuse_page.py FILE READY_FILE SECONDS
import ctypes
import os
import sys
import time


def map_page(path):
    """The address of a private read-only mapping of path's first page."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.mmap.restype = ctypes.c_void_p
    libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int,
                          ctypes.c_int, ctypes.c_int, ctypes.c_long]
    fd = os.open(path, os.O_RDONLY)
    page = libc.mmap(None, 4096, 1, 2, fd, 0)	# PROT_READ, MAP_PRIVATE
    if page is None or page == ctypes.c_void_p(-1).value:
        sys.exit("mmap failed")
    return page


if __name__ == "__main__":
    path, ready, secs = sys.argv[1], sys.argv[2], float(sys.argv[3])
    page = map_page(path)
    with open(ready + ".tmp", "w") as f:
        f.write("%d %x\n" % (os.getpid(), page))
    os.rename(ready + ".tmp", ready)
    time.sleep(secs)

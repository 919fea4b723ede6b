# A Python process whose running function's name (the str the profiler
# reads for the frame: co_qualname from 3.11, co_name before) points into
# a page of a file on FUSE: the file is mapped, never touched, and the code
# object's pointers to its name rewritten to that page through ctypes.
# Python itself does not read the name while the function runs; a
# profiler reading it faults the page in from the FUSE server.  The
# pointers are put back before the function returns.
#
#	python3 py_fuse_name.py FILE READY_FILE SECONDS
import ctypes
import os
import sys
import time

sys.dont_write_bytecode = True	# nothing written beside the sources
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fuse_page import map_page  # noqa: E402

path, ready, secs = sys.argv[1], sys.argv[2], float(sys.argv[3])
page = map_page(path)


def a_frame_whose_name_lives_on_a_fuse_page(deadline):
    x = 0
    while time.monotonic() < deadline:
        x += 1
    return x


co = a_frame_whose_name_lives_on_a_fuse_page.__code__
names = {id(co.co_name), id(getattr(co, "co_qualname", co.co_name))}
# The name fields are among the code object's first pointers (its header,
# before the bytecode): every slot holding one of the names is rewritten.
slots = [off for off in range(16, 160, 8)
         if ctypes.c_uint64.from_address(id(co) + off).value in names]
if not slots:
    sys.exit("no name pointer found in the code object")
old = {off: ctypes.c_uint64.from_address(id(co) + off).value for off in slots}
deadline = time.monotonic() + secs
for off in slots:
    ctypes.c_uint64.from_address(id(co) + off).value = page
with open(ready, "w") as f:
    f.write("%x\n" % page)
a_frame_whose_name_lives_on_a_fuse_page(deadline)
for off in slots:
    ctypes.c_uint64.from_address(id(co) + off).value = old[off]

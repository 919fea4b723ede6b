"""CPU contention for the Python plugin's on-CPU test.

    py_duty.py busy        spin in spin_forever() forever
    py_duty.py duty FILE   spin in busy_main() on the main thread, and run
                           duty_thread() on a second thread: busy 2 ms in
                           duty_busy(), then asleep 18 ms, forever; its TID
                           goes into FILE, then "ready" on stdout.

With more spinning threads than CPUs, the duty thread waits for a CPU
each time it wakes: runnable (state R in /proc) far longer than it runs.
"""
import sys
import threading
import time


def spin_forever():
    x = 0
    while True:
        x += 1


def busy_main():
    x = 0
    while True:
        x += 1


def duty_busy(ms):
    end = time.thread_time() + ms / 1000.0
    while time.thread_time() < end:
        pass


tid_written = threading.Event()


def duty_thread(path):
    with open(path, 'w') as f:
        f.write('%d\n' % threading.get_native_id())
    tid_written.set()
    while True:
        duty_busy(2)
        time.sleep(0.018)


if sys.argv[1] == 'duty':
    threading.Thread(target=duty_thread, args=(sys.argv[2],),
                     daemon=True).start()
    # ready once its TID is on file: the test reads it at once
    tid_written.wait()
    print('ready', flush=True)
    busy_main()
else:
    print('ready', flush=True)
    spin_forever()

"""Python reader workload: known nested functions on a busy main thread and
one sleeping thread that must never be sampled.  Markers (# DEF:, # BUSY:)
let the tests find the lines without hard-coding them."""
import threading
import time

sleeper_tid = []


def sleeping_thread_body():  # DEF:sleeping
    sleeper_tid.append(threading.get_native_id())
    while True:
        time.sleep(3600)


def wait_until_asleep():
    """Print "ready" only once the sleeper really sleeps (state S), so a
    sample taken right after cannot catch it starting up."""
    while not sleeper_tid:
        time.sleep(0.01)
    for _ in range(500):
        with open("/proc/self/task/%d/stat" % sleeper_tid[0]) as f:
            if f.read().rsplit(")", 1)[1].split()[0] == "S":
                return
        time.sleep(0.01)


class Worker:
    def step(self):  # DEF:step
        x = 0
        for i in range(20000):
            x += i * 3  # BUSY:step
        return x


def inner_loop():  # DEF:inner
    w = Worker()
    while True:
        w.step()  # BUSY:inner


def middle():  # DEF:middle
    inner_loop()


def outer():  # DEF:outer
    middle()


t = threading.Thread(target=sleeping_thread_body, daemon=True)
t.start()
wait_until_asleep()
print("ready", flush=True)
outer()

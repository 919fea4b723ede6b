"""Python reader workload: known nested functions on a busy main thread and
one sleeping thread that must never be sampled.  Markers (# DEF:, # BUSY:)
let the tests find the lines without hard-coding them."""
import threading
import time


def sleeping_thread_body():  # DEF:sleeping
    while True:
        time.sleep(3600)


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
print("ready", flush=True)
outer()

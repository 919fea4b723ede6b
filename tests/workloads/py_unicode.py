"""Python reader workload: non-ASCII function names (Latin-1 and BMP
characters, so the 1- and 2-byte str kinds are read); the tests also run it
from a non-ASCII path, so the file name is a non-ASCII str too."""


def café_ünïcode():  # DEF:latin
    x = 0
    while True:
        x += 1
        if x % 1000 == 0:
            深い_関数()


def 深い_関数():  # DEF:bmp
    y = 0
    for i in range(200):
        y += i
    return y


print("ready", flush=True)
café_ünïcode()

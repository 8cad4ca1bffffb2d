"""A job in three phases for the region views' tests (the report's bands, the
explorer's bands and region filter): "load" reads two files, "checkpoint" writes one
and, nested in it, "flush" writes one more while a second thread writes another
(outside any region: threads do not inherit regions); the gaps between the
phases hold no I/O.  `region_phases.py DIR plain` does the same I/O with no region."""
import contextlib
import os
import sys
import threading
import time

import iolens

d, plain = sys.argv[1], sys.argv[2:] == ["plain"]
region = (lambda name: contextlib.nullcontext()) if plain else iolens.region


def write(name, count, size=8192):
    with open(os.path.join(d, name), "wb") as f:
        for _ in range(count):
            f.write(b"x" * size)


def read(name):
    with open(os.path.join(d, name), "rb") as f:
        while f.read(4096):
            pass


write("in0.dat", 16)
write("in1.dat", 16)
time.sleep(0.2)
with region("load"):
    read("in0.dat")
    time.sleep(0.2)
    read("in1.dat")
time.sleep(0.2)
with region("checkpoint"):
    write("ckpt.dat", 10)
    time.sleep(0.1)
    with region("flush"):
        side = threading.Thread(target=write, args=("side.dat", 4))
        side.start()
        write("ckpt2.dat", 4)
        side.join()

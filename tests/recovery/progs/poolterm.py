"""A multiprocessing pool (forkserver start method, 4 workers) terminated while
every worker is busy.  Each worker writes DIR/t<pid> once, then computes until
it is killed: with numpy, matrix products (OpenBLAS threads running in the
worker); without numpy, a plain Python loop.  The parent waits (bounded) until
4 workers have written their files, calls Pool.terminate() (SIGTERM to each
worker) and join(), and prints the workers' pids and "numpy" or "plain".

    python poolterm.py DIR"""
import multiprocessing as mp
import os
import sys
import time

try:
    import numpy
except ImportError:
    numpy = None


def work(d):
    with open(os.path.join(d, f"t{os.getpid()}"), "wb") as f:
        f.write(b"x" * 100)
    deadline = time.monotonic() + 120            # never outlive a failed test by long
    if numpy is not None:
        a = numpy.random.default_rng(0).random((300, 300))
        while time.monotonic() < deadline:
            a = a @ a
            a /= numpy.abs(a).max()
    else:
        x = 0
        while time.monotonic() < deadline:
            x = (x * 7 + 1) % 1000003


if __name__ == "__main__":
    d = sys.argv[1]
    ctx = mp.get_context("forkserver")
    if numpy is not None:
        ctx.set_forkserver_preload(["numpy"])
    pool = ctx.Pool(4)
    pool.map_async(work, [d] * 4, chunksize=1)
    deadline = time.monotonic() + 60
    while len([n for n in os.listdir(d) if n.startswith("t")]) < 4:
        if time.monotonic() > deadline:
            sys.exit("the workers did not start")
        time.sleep(0.05)
    time.sleep(0.3)                              # all of them deep in their work
    pool.terminate()
    pool.join()
    print(" ".join(n[1:] for n in sorted(os.listdir(d)) if n.startswith("t")))
    print("numpy" if numpy is not None else "plain")

"""A multi-process job: 4 workers (multiprocessing fork or spawn processes, one
task each, or a concurrent.futures pool of 4 sharing the 4 tasks) each write their own file w<i> (10 x 1000
bytes) and read the common file `shared` (3 x 100 bytes).

    python mpjob.py DIR fork|spawn|futures"""
import os
import sys


def work(args):
    d, i = args
    with open(os.path.join(d, f"w{i}"), "wb") as f:
        for _ in range(10):
            f.write(b"x" * 1000)
            f.flush()
    fd = os.open(os.path.join(d, "shared"), os.O_RDONLY)
    for _ in range(3):
        os.read(fd, 100)
    os.close(fd)
    return i


if __name__ == "__main__":
    d, how = sys.argv[1], sys.argv[2]
    with open(os.path.join(d, "shared"), "wb") as f:
        f.write(b"s" * 4096)
    jobs = [(d, i) for i in range(4)]
    if how == "futures":
        import concurrent.futures as cf
        with cf.ProcessPoolExecutor(max_workers=4) as ex:
            assert sorted(ex.map(work, jobs)) == [0, 1, 2, 3]
    else:
        import multiprocessing as mp
        ctx = mp.get_context(how)
        procs = [ctx.Process(target=work, args=(j,)) for j in jobs]
        for p in procs:
            p.start()
        for p in procs:
            p.join()
            assert p.exitcode == 0

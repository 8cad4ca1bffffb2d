"""Generate N synthetic logs (iolens.fleet.synth) for the fleet benchmark,
in 2 processes; shards already complete are kept, so a re-run is cheap.

    python bench/fleet/gen_logs.py DIR [N]
"""
import os
import sys
from multiprocessing import Pool

from iolens.fleet.synth import generate


def shard(args):
    directory, count, seed = args
    done = os.path.join(directory, ".done")
    if os.path.exists(done):
        return count
    generate(directory, count, seed=seed, start=1_700_000_000 + seed * 10_000_000)
    open(done, "w").close()
    return count


def main():
    root, n = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 100_000
    per = 5000
    jobs = [(os.path.join(root, f"shard{k:03d}"), min(per, n - k * per), k + 1)
            for k in range(-(-n // per))]
    with Pool(2) as pool:
        print(sum(pool.map(shard, jobs)), "logs under", root)


if __name__ == "__main__":
    main()

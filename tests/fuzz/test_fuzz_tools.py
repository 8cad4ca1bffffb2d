"""Mutation smoke of `iolens recover` and `iolens merge` (issue 26; docs/fuzzing.md).

The libFuzzer targets cover the format library in memory; this runs the two verbs
that rewrite logs, as a user runs them, on mutants of valid inputs: a safety copy
as the runtime leaves one (uncompressed, job end 0, POSIX, STDIO, DXT and names)
and a finished zlib log, plus a few corpus logs when ../shared is present (read in
place).  Mutations: flipped and overwritten bytes, header fields set to extremes
(region offsets and lengths, the job's nprocs), cut and spliced files.  Each run has
a 1 GiB address-space limit (none for an ASan build) and a 30 s bound, and must end with a status of its own
(no signal, no sanitizer report), 0 or one line per failure; a log it wrote must
open, and must read whole when its input did.

Default: 40 mutants per verb (a few seconds).  IOLENS_LONG=1: 2,000 each.
IOLENS_FUZZ_SEED picks the mutants (default 20261128; every failure names it)."""
from __future__ import annotations

import os
import random
import resource
import shutil
import struct
import subprocess
from pathlib import Path

import numpy as np
import pytest

import iolens
from iolens._meta import module_info
from iolens.write import Writer

SEED = int(os.environ.get("IOLENS_FUZZ_SEED", "20261128"))
COUNT = 2000 if os.environ.get("IOLENS_LONG") == "1" else 40
CORPUS = Path(__file__).resolve().parents[2].parent / "shared" / "corpus" / "logs"
LIMIT = 1 << 30


def tool():
    t = os.environ.get("IOLENS_BIN") or shutil.which("iolens")
    if not t:
        pytest.skip("the iolens tool is not built (set IOLENS_BIN)")
    return t


def write_seed(path, compression, end):
    n = 3
    ids = [11, 12, 13]
    with Writer(path, compression=compression) as w:
        w.set_job(uid=os.getuid(), start_time_sec=1_700_000_000, end_time_sec=end, nprocs=2,
                  jobid=4711, exe="/bin/app --in x", mounts=[("/", "ext4"), ("/scratch", "lustre")])
        w.add_names(ids, ["/scratch/a", "/scratch/b", "<STDOUT>"])
        for mod in ("POSIX", "STDIO"):
            info = module_info(mod)
            c = np.arange(n * len(info.counters), dtype=np.int64).reshape(n, -1) % 97
            f = np.linspace(0.0, 3.0, n * len(info.fcounters)).reshape(n, -1)
            w.put_records(mod, ids, [0, 1, -1], c, f)
        w.put_dxt("DXT_POSIX", ids[:2], [0, 1], ["node0", "node1"], [2, 0], [0, 1],
                  [0, 4096, 8192], [4096, 4096, 100], [0.1, 0.2, 0.3], [0.15, 0.25, 0.35])
    return path.read_bytes()


@pytest.fixture(scope="module")
def seeds(tmp_path_factory):
    d = tmp_path_factory.mktemp("seeds")
    out = {"copy": write_seed(d / "copy.darshan", "none", 0),
           "log": write_seed(d / "log.darshan", "zlib", 1_700_000_100)}
    if CORPUS.is_dir():
        for p in sorted(CORPUS.rglob("*.darshan"))[:40:8]:
            if p.stat().st_size < 1 << 20:
                out[p.name] = p.read_bytes()
    return out


def mutate(data: bytes, rng: random.Random) -> bytes:
    b = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        kind = rng.randrange(6)
        if kind == 0 and b:                         # flip bytes
            for _ in range(rng.randint(1, 16)):
                b[rng.randrange(len(b))] ^= 1 << rng.randrange(8)
        elif kind == 1 and len(b) >= 1328:          # a region map entry to an extreme
            at = rng.choice([32] + [48 + 16 * m for m in range(64)])   # names, module m
            val = rng.choice([0, 1, len(b), len(b) + 1, 2**31, 2**63 - 1, 2**64 - 1,
                              rng.randrange(len(b))])
            struct.pack_into("<Q", b, at + 8 * rng.randrange(2), val)
        elif kind == 2 and b:                       # cut
            del b[rng.randrange(len(b)):]
        elif kind == 3 and b:                       # splice a piece elsewhere
            i, j = sorted(rng.randrange(len(b)) for _ in range(2))
            k = rng.randrange(len(b))
            b[k:k] = b[i:j][:4096]
        elif kind == 4 and len(b) > 8:              # overwrite with a run of one byte
            i = rng.randrange(len(b) - 8)
            b[i:i + rng.randint(1, 64)] = bytes([rng.choice([0, 0xff, 0x7f])]) * rng.randint(1, 64)
        elif kind == 5 and len(b) >= 1328 + 48:     # uncompressed job: nprocs, times
            struct.pack_into("<q", b, 1328 + rng.choice([8, 16, 24, 32, 40]),
                             rng.choice([-1, 0, 2**31, 2**62, -(2**63)]))
    return bytes(b)


def limited():
    resource.setrlimit(resource.RLIMIT_AS, (LIMIT, LIMIT))


def sanitized(path) -> bool:
    """An ASan build reserves terabytes of address space: no RLIMIT_AS for it (its
    allocator's own limit applies)."""
    return b"__asan_init" in Path(path).read_bytes()


def run(args, what):
    t = tool()
    res = subprocess.run([t, *map(str, args)], capture_output=True, timeout=30,
                         preexec_fn=None if sanitized(t) else limited)
    err = res.stderr.decode(errors="replace")
    assert res.returncode >= 0, f"{what}: killed by signal {-res.returncode}\n{err}"
    assert "Sanitizer" not in err and "runtime error" not in err, f"{what}: {err}"
    return res, err


def reads_whole(path) -> bool:
    res = subprocess.run([tool(), "parse", "--all", str(path)], capture_output=True, timeout=60)
    return res.returncode == 0


def check_written(path, sources, what):
    with iolens.open(path):                         # what we wrote opens ...
        pass
    if all(reads_whole(s) for s in sources):        # ... and reads whole when its inputs did
        assert reads_whole(path), f"{what}: {path} does not read back"


@pytest.mark.parametrize("base", ["copy", "log"])
def test_recover_on_mutants(seeds, tmp_path, base):
    rng = random.Random(f"{SEED}-recover-{base}")
    for i in range(COUNT):
        what = f"recover mutant {i} of {base} (IOLENS_FUZZ_SEED={SEED})"
        d = tmp_path / str(i)
        (d / "out").mkdir(parents=True)
        copy = d / f"u_app_id4711-{999_000_000 + i}_mmap-log-1.darshan"
        copy.write_bytes(mutate(seeds[base], rng))
        res, err = run(["recover", "--force", "--keep", "--logdir", d / "out", copy], what)
        assert res.returncode in (0, 1), f"{what}: status {res.returncode}\n{err}"
        made = list((d / "out").glob("*_recovered.darshan"))
        assert len(made) == (res.returncode == 0 and b"recovered" in res.stdout), what
        if res.returncode:
            assert err.count("\n") >= 1 and all(
                line.startswith("iolens recover: ") for line in err.splitlines()), f"{what}: {err}"
        for m in made:
            check_written(m, [copy], what)
        shutil.rmtree(d)


def test_merge_on_mutants(seeds, tmp_path):
    rng = random.Random(f"{SEED}-merge")
    names = sorted(seeds)
    for i in range(COUNT):
        what = f"merge mutant {i} (IOLENS_FUZZ_SEED={SEED})"
        d = tmp_path / str(i)
        d.mkdir()
        a, b = d / "a.darshan", d / "b.darshan"
        a.write_bytes(mutate(seeds[rng.choice(names)], rng))
        b.write_bytes(seeds[rng.choice(names)] if rng.random() < 0.5
                      else mutate(seeds[rng.choice(names)], rng))
        out = d / "m.darshan"
        flags = rng.choice([[], ["--workflow"], ["--no-reduce"], ["--allow-duplicates"]])
        res, err = run(["merge", *flags, "-o", out, a, b], what)
        assert res.returncode in (0, 1, 2), f"{what}: status {res.returncode}\n{err}"
        if res.returncode == 0:
            check_written(out, [a, b], what)
        else:
            assert not out.exists() and err.strip(), f"{what}: {err}"
        shutil.rmtree(d)

"""Damaged logs raise iolens.LogError subclasses (or read fine); they never crash or
raise anything else.  Mutations are deterministic (fixed seed)."""
import random

import pytest

import iolens
from pyreader_corpus import CORPUS

SAMPLES = ["release_logs/mpi-io-test-x86_64-3.4.7.darshan",   # LUSTRE, HEATMAP, APMPI
           "mpi_io_test_with_dxt/treddy_mpi-io-test_id4373053_6-2-60198-9815401321915095332_1.darshan",
           "release_logs/mpi-io-test-ppc64-3.1.3.darshan"]     # big-endian, old header


def read_everything(path):
    with iolens.open(path) as log:
        log.job, log.names, log.mounts
        for name in log.modules:
            try:
                kind = iolens.module_info(name).kind
            except iolens.UnknownModuleError:
                continue
            if kind in ("counters", "mdhim"):
                log.records(name)
            elif kind == "dxt":
                log.dxt(name)
            elif kind == "heatmap":
                log.heatmap()
            elif kind == "lustre":
                log.lustre()


@pytest.mark.parametrize("sample", SAMPLES)
def test_mutated_logs(sample, tmp_path):
    src = CORPUS / sample
    if not src.is_file():
        pytest.skip(f"corpus log {src} not found (../shared absent or incomplete)")
    data = src.read_bytes()
    rng = random.Random(sample)
    outcomes = {"ok": 0, "error": 0}
    for i in range(120):
        buf = bytearray(data)
        if i % 4 == 0:
            buf = buf[: rng.randrange(len(buf))]                 # truncation
        else:
            for _ in range(rng.randint(1, 8)):                   # byte flips
                buf[rng.randrange(len(buf))] = rng.randrange(256)
        p = tmp_path / f"m{i}.darshan"
        p.write_bytes(bytes(buf))
        try:
            read_everything(p)
            outcomes["ok"] += 1
        except iolens.LogError as exc:
            assert exc.detail and isinstance(exc.status, int)
            outcomes["error"] += 1
    assert outcomes["error"] > 0  # the mutations do hit checked fields

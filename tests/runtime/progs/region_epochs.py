"""An annotated training-style job (tests/runtime/test_regions_python.py): for each
epoch e, inside `iolens.region(f"epoch {e}")`, a pool of forked workers and a pool
of spawned workers each read half of the epoch's small files (DATA/e<e>_*.bin),
then the main process reads the epoch's HDF5 dataset (DATA/e<e>.h5) with h5py.

usage: python region_epochs.py DATA EPOCHS FILES [--torch]
(--torch: the same loads through a PyTorch DataLoader with 4 workers, both start
methods; needs torch, not run by default.)"""
import multiprocessing as mp
import os
import sys

import iolens


def read_file(path):
    with open(path, "rb") as f:
        return len(f.read())


def load_epoch(data, e, nfiles):
    files = [os.path.join(data, f"e{e}_{i}.bin") for i in range(nfiles)]
    half = len(files) // 2
    with mp.get_context("fork").Pool(2) as pool:
        n = sum(pool.map(read_file, files[:half]))
    with mp.get_context("spawn").Pool(2) as pool:
        n += sum(pool.map(read_file, files[half:]))
    return n


class EpochFiles:
    """A map-style dataset of some of an epoch's small files: item i is the size of
    the i-th of them.  At module level so that spawned DataLoader workers can
    unpickle it; torch's Dataset is only a protocol here (len + getitem)."""

    def __init__(self, paths):
        self.paths = paths

    def __len__(self):
        return len(self.paths)

    def __getitem__(self, i):
        return read_file(self.paths[i])


def load_epoch_torch(data, e, nfiles):
    import torch.utils.data as tud

    files = [os.path.join(data, f"e{e}_{i}.bin") for i in range(nfiles)]
    half = len(files) // 2
    n = 0
    # half of the files through forked workers, half through spawned ones, as
    # load_epoch does, so each file is read once per epoch
    for method, part in (("fork", files[:half]), ("spawn", files[half:])):
        loader = tud.DataLoader(EpochFiles(part), batch_size=4, num_workers=4,
                                multiprocessing_context=method)
        n += sum(int(b.sum()) for b in loader)
    return n


def read_h5(data, e):
    import h5py
    with h5py.File(os.path.join(data, f"e{e}.h5"), "r") as f:
        return int(f["x"][:].sum())


def main():
    data, epochs, nfiles = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    load = load_epoch_torch if "--torch" in sys.argv else load_epoch
    for e in range(epochs):
        with iolens.region(f"epoch {e}"):
            n = load(data, e, nfiles)
            s = read_h5(data, e)
            print(f"epoch {e} bytes {n} sum {s}", flush=True)


if __name__ == "__main__":
    main()

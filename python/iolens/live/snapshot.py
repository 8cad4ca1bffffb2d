"""One process's safety copy, read consistently while the process runs.

The copy is an uncompressed 3.41 log that the process keeps current
(src/runtime/core/safety.h); its last 64 bytes (include/iolens/live.h) say where
the record seq words are.  A record of POSIX, STDIO or MPI-IO is taken only when
its seq word is even and the same before and after the copy; a record caught
mid-update is read again (a few times), else its previous reading is kept and
counted in ``busy``.  Only records whose word changed since the last snapshot are
read again, so a snapshot of an idle process costs the seq words alone.  A
copy's round is one call of the C extension (iolens._core.live_read_copy,
include/iolens/live_read.h): the header and the job record's fixed fields (one
pread), then every layer's region.  The records are read with pread, not
through the map, so none of the process's pages enter the reader's resident
size and no page is faulted in or dropped each round.  A process whose
records did not change keeps its layers' objects from the round before.

The file is opened read-only: no lock, no signal, nothing the process can
see.  The trailer is read with pread too: a copy cut under the reader is an
error (TruncatedLogError), never a SIGBUS.  The map
(read-only) serves only the lookups of names and record ids on demand.  A copy
being created (too short, no magic yet) reads as not ready; a copy removed
under the reader stays open until :meth:`CopyReader.close` and is reported
``gone``.  Copies of older runtimes (no trailer) are read without the check.
"""
from __future__ import annotations

import mmap
import os
import struct
from dataclasses import dataclass, field
from typing import Callable, Dict, List, Optional, Tuple

import numpy as np

from .. import _core
from .._meta import module_info
from .copies import CopyName, open_copy, process_alive

HDR, JOB_REC, JOB_HEAD = 1328, 1080, 56   # JOB_HEAD: the job record's fixed fields
EXE_LEN = 4096 - JOB_REC                   # the executable string's room
MAGIC = 6567223
OFF_PARTIAL, OFF_NAMES, OFF_MODS, OFF_VER = 24, 32, 48, 1072
TRAILER = struct.Struct("<8sQQQII24x")
LIVE_MAGIC = b"IOLLIVE1"
RETRIES = 8
NAMES_KEPT = 64      # names kept per copy once looked up
ALIVE_EVERY = 5.0    # seconds between two looks at whether the process is alive

# The layers shown, their module (its id and record layout from the module table)
# and the counters that make each figure.
LAYERS = {
    "posix": ("POSIX", dict(
        reads=["POSIX_READS"], writes=["POSIX_WRITES"],
        bytes_read=["POSIX_BYTES_READ"], bytes_written=["POSIX_BYTES_WRITTEN"],
        meta_ops=["POSIX_OPENS", "POSIX_FILENOS", "POSIX_DUPS", "POSIX_SEEKS", "POSIX_STATS",
                  "POSIX_MMAPS", "POSIX_FSYNCS", "POSIX_FDSYNCS", "POSIX_RENAME_SOURCES"],
        read_seconds=["POSIX_F_READ_TIME"], write_seconds=["POSIX_F_WRITE_TIME"],
        meta_seconds=["POSIX_F_META_TIME"],
        last=["POSIX_F_OPEN_END_TIMESTAMP", "POSIX_F_READ_END_TIMESTAMP",
              "POSIX_F_WRITE_END_TIMESTAMP", "POSIX_F_CLOSE_END_TIMESTAMP"])),
    "stdio": ("STDIO", dict(
        reads=["STDIO_READS"], writes=["STDIO_WRITES"],
        bytes_read=["STDIO_BYTES_READ"], bytes_written=["STDIO_BYTES_WRITTEN"],
        meta_ops=["STDIO_OPENS", "STDIO_FDOPENS", "STDIO_SEEKS", "STDIO_FLUSHES"],
        read_seconds=["STDIO_F_READ_TIME"], write_seconds=["STDIO_F_WRITE_TIME"],
        meta_seconds=["STDIO_F_META_TIME"],
        last=["STDIO_F_OPEN_END_TIMESTAMP", "STDIO_F_READ_END_TIMESTAMP",
              "STDIO_F_WRITE_END_TIMESTAMP", "STDIO_F_CLOSE_END_TIMESTAMP"])),
    "mpiio": ("MPI-IO", dict(
        reads=["MPIIO_INDEP_READS", "MPIIO_COLL_READS", "MPIIO_SPLIT_READS", "MPIIO_NB_READS"],
        writes=["MPIIO_INDEP_WRITES", "MPIIO_COLL_WRITES", "MPIIO_SPLIT_WRITES",
                "MPIIO_NB_WRITES"],
        bytes_read=["MPIIO_BYTES_READ"], bytes_written=["MPIIO_BYTES_WRITTEN"],
        meta_ops=["MPIIO_INDEP_OPENS", "MPIIO_COLL_OPENS", "MPIIO_SYNCS", "MPIIO_HINTS",
                  "MPIIO_VIEWS"],
        read_seconds=["MPIIO_F_READ_TIME"], write_seconds=["MPIIO_F_WRITE_TIME"],
        meta_seconds=["MPIIO_F_META_TIME"],
        last=["MPIIO_F_OPEN_END_TIMESTAMP", "MPIIO_F_READ_END_TIMESTAMP",
              "MPIIO_F_WRITE_END_TIMESTAMP", "MPIIO_F_CLOSE_END_TIMESTAMP"])),
}
FIGURES = ("reads", "writes", "bytes_read", "bytes_written", "meta_ops",
           "read_seconds", "write_seconds", "meta_seconds")
BYTES_READ, BYTES_WRITTEN = FIGURES.index("bytes_read"), FIGURES.index("bytes_written")
MOVED_FIGURES = 1 << BYTES_READ | 1 << BYTES_WRITTEN     # bytes moved per record


def _columns(module: str, names: List[str]):
    """(int column indexes, float column indexes) of counter names, in record words."""
    info = module_info(module)
    ints = [16 // 8 + info.counters.index(n) for n in names if n in info.counters]
    flts = [16 // 8 + len(info.counters) + info.fcounters.index(n)
            for n in names if n in info.fcounters]
    return ints, flts


class _Terms:
    """The figures of a layer's records for live_read_copy: per counter used,
    (record word, figure, is float) as packed uint32 triples; and the float
    words of the end timestamps whose maximum is `last`."""

    def __init__(self, cols):
        triples = [(c, j, is_float) for j, k in enumerate(FIGURES)
                   for is_float in (0, 1) for c in cols[k][is_float]]
        self.terms = np.array(triples, np.uint32).tobytes()
        self.last = np.array(cols["last"][1], np.uint32).tobytes()


class _Layout:
    """Per layer: record words and the columns of each figure (computed once)."""

    def __init__(self):
        self.layers = {}
        for layer, (module, figs) in LAYERS.items():
            info = module_info(module)
            words = 2 + len(info.counters) + len(info.fcounters)
            cols = {k: _columns(module, v) for k, v in figs.items()}
            self.layers[layer] = (info.id, words, _Terms(cols))


_LAYOUT = None


def _layout() -> _Layout:
    global _LAYOUT
    if _LAYOUT is None:
        _LAYOUT = _Layout()
    return _LAYOUT


@dataclass
class LayerRecords:
    """A layer's records as last read: bytes moved (read + written) per
    record (None for a reader made with moved=False), the figures summed over
    the records, the latest end timestamp
    (seconds since the job start, 0 none), and record_id(i), the id of record
    i (read from the copy when asked: ids are not kept, 8 bytes a record)."""
    moved: Optional[np.ndarray]
    sums: np.ndarray     # the figures summed, in FIGURES order
    last: float
    record_id: Callable[[int], int]

    @property
    def totals(self) -> Dict[str, float]:
        return dict(zip(FIGURES, self.sums.tolist()))


@dataclass
class ProcessSnapshot:
    path: str
    jobid: int
    pid: int
    rank: int
    nprocs: int
    uid: int
    exe: str
    start: float                     # seconds since the epoch
    alive: bool
    finished: bool                   # the process wrote its log (copy marked)
    partial: List[str]
    layers: Dict[str, LayerRecords]
    busy: int = 0                    # records caught mid-update and not re-read
    checked: bool = True             # False: an old copy without seq words
    taken: float = 0.0               # time.time() of the snapshot

    _totals: Optional[Dict[str, Dict[str, float]]] = field(default=None, repr=False,
                                                           compare=False)
    _last_io: Optional[tuple] = field(default=None, repr=False, compare=False)

    def totals(self) -> Dict[str, Dict[str, float]]:
        """Per layer, the figures summed (made once: the exporter and the view
        ask several times a round)."""
        if self._totals is None:
            self._totals = {layer: r.totals for layer, r in self.layers.items()}
        return self._totals

    @property
    def last_io(self) -> Optional[float]:
        """Seconds since the epoch of the last recorded operation, or None
        (made once: the exporter asks twice a scrape)."""
        if self._last_io is None:
            last = max((r.last for r in self.layers.values()), default=0.0)
            self._last_io = (self.start + last if last > 0 else None,)
        return self._last_io[0]


class NotReady(Exception):
    """The copy is being created (or is no copy): try again at the next round."""


UNREAD = 1   # the seq word kept for a record not read yet (odd: never a taken one)


class _RecordCache:
    """Previous reading of one module region: per record its seq word (UNREAD
    until read) and figures; the latest end timestamp of them all.  Only these
    are kept (not the records: 68 bytes a record instead of up to 704), updated
    in place by live_read_copy.  The latest timestamp is a running maximum: a
    record's end timestamps only grow while the process runs.  The figures'
    sums are kept up to date by the changes of the records read again (delta,
    not summed over every record each round); a record's figures only grow, so
    the sums never go down."""

    def __init__(self):
        self.seq = np.zeros(0, np.uint32)
        self.figs = np.zeros((0, len(FIGURES)), np.float64)
        self.last = 0.0
        self.sums = np.zeros(len(FIGURES))    # replaced, never changed in place:
        self.moved = None                     # snapshots share them
        self.words = None          # the whole records, when the reader keeps them

    def grow(self, n: int):
        old = len(self.seq)
        if old >= n:
            return
        self.seq = np.concatenate([self.seq, np.full(n - old, UNREAD, np.uint32)])
        self.figs = np.concatenate([self.figs, np.zeros((n - old, len(FIGURES)))])
        if self.moved is not None:
            self.moved = np.concatenate([self.moved, np.zeros(n - old)])
        if self.words is not None:
            self.words = np.concatenate([self.words, np.zeros((n - old, self.words.shape[1]),
                                                              np.int64)])

    def forget(self):
        """Every record unread, nothing summed: the next reading rebuilds it all
        (the latest timestamp, a running maximum, stays)."""
        self.seq[:] = UNREAD
        self.figs[:] = 0.0
        self.sums = np.zeros(len(FIGURES))
        if self.moved is not None:
            self.moved = np.zeros(len(self.moved))

    def changed(self, last: float, delta: np.ndarray, moved: Optional[np.ndarray]):
        """Records were read again: the sums moved by delta; the bytes moved
        per record are those live_read_copy updated (a new array)."""
        self.sums = self.sums + delta
        self.moved = moved
        self.last = max(self.last, last)


class CopyReader:
    """Reads one safety copy again and again (keep it between snapshots)."""

    def __init__(self, name: CopyName, keep_records: bool = False, moved: bool = True):
        """keep_records: also keep each record whole (records(); tests).
        moved: give each layer's bytes moved per record (for the busiest files;
        the exporter without --files asks none: ~3 us a process and round)."""
        self.name = name
        self.keep_records = keep_records
        self.want_moved = moved
        self.jobid = name.jobid             # the job record's, from the first round
        # The fd stays open: the records are read with pread (live_read_copy).
        self.fd = open_copy(name.path)
        try:
            st = os.fstat(self.fd)
            if st.st_size < HDR + 4096:
                raise NotReady(name.path)
            self.map = mmap.mmap(self.fd, st.st_size, prot=mmap.PROT_READ)
        except BaseException:
            os.close(self.fd)
            raise
        self.ino = (st.st_dev, st.st_ino)
        self.uid = st.st_uid
        self.size = st.st_size
        try:
            magic = struct.unpack("<q", _pread(self.fd, 8, 8, name.path))[0]
            t = TRAILER.unpack(_pread(self.fd, TRAILER.size, self.size - TRAILER.size,
                                      name.path))
        except (OSError, _core.LogError):
            self.close()
            raise NotReady(name.path) from None
        if magic != MAGIC:
            self.close()
            raise NotReady(name.path)
        self.seq_table = (0, 0, 0, 0)          # (off, len, pool_off, shift); len 0: none
        if t[0] == LIVE_MAGIC and t[2] + t[3] <= len(self.map):
            self.seq_table = (t[2], t[3], t[1], t[4])
        # Pages read through the map (names, record ids, on demand) are
        # dropped at the end of the round.
        self._paged = False
        self._layout = list(_layout().layers.values())       # (modid, words, terms), LAYERS order
        self.cache: Dict[str, _RecordCache] = {layer: _RecordCache() for layer in LAYERS}
        self._caches = list(self.cache.values())
        for c, (_, words, _) in zip(self._caches, self._layout):
            if keep_records:
                c.words = np.zeros((0, words), np.int64)
            if moved:
                c.moved = np.zeros(0)
        self._call = None                   # live_read_copy's layers (made again on growth)
        self._moved: List[np.ndarray] = []  # the bytes moved per record being updated
        self._head = bytearray(HDR + JOB_HEAD)           # as live_read_copy read it
        self._out = np.zeros((len(LAYERS), 12))          # its per-layer results
        self._records: tuple = ()           # records per layer at the last round
        self._last_layers: Dict[str, LayerRecords] = {}
        self._partial = (0, [])             # (partial bits, module names)
        self._job_head, self._exe, self._job_fields = b"", "", ()
        self.names: Dict[int, str] = {}     # the names looked up (at most NAMES_KEPT)
        self._alive, self._alive_at = True, float("-inf")
        self._id_readers = [self._id_reader(modid, words) for modid, words, _ in self._layout]

    @property
    def checked(self) -> bool:
        """The copy has seq words (a runtime with the live trailer)."""
        return self.seq_table[1] > 0

    def close(self):
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1
        try:
            self.map.close()
        except BufferError:       # a view is still held: the GC unmaps it
            pass

    def gone(self) -> bool:
        """The copy was removed (or replaced) since it was opened."""
        try:
            st = os.stat(self.name.path, follow_symlinks=False)
        except OSError:
            return True
        return (st.st_dev, st.st_ino) != self.ino

    def _u64(self, off):
        return struct.unpack_from("<Q", self.map, off)[0]

    def _job(self, head) -> tuple:
        """(uid, start, end_sec, nprocs, jobid, exe) of the job record's fixed
        fields in head (read by live_read_copy), parsed again only when they
        changed since the last round; then read again until stable (an MPI
        process rewrites the record once, after MPI_Init; fields equal to a
        stable reading are that reading, not a torn one)."""
        fixed = bytes(head[HDR:])
        if fixed == self._job_head:
            return self._job_fields
        for _ in range(RETRIES):
            again = _pread(self.fd, JOB_HEAD, HDR, self.name.path)
            if again == fixed:
                self._job_head = again
                self._exe = _pread(self.fd, EXE_LEN, HDR + JOB_REC, self.name.path).split(
                    b"\0", 1)[0].split(b"\n", 1)[0].decode("utf-8", "replace")
                self._job_fields = self._parse_job(again)
                return self._job_fields
            fixed = again
        return self._parse_job(fixed)

    def _parse_job(self, fixed: bytes) -> tuple:
        uid, ssec, snsec, esec, _ensec, nprocs, jobid = struct.unpack_from("<7q", fixed)
        return uid, ssec + snsec * 1e-9, esec, nprocs, jobid, self._exe

    def name_of(self, rid: int) -> str:
        """The name of record id rid (its id in hex when not found).  Looked up
        in the name region on demand, not parsed every round: a viewer of 256
        processes x 1,000 files would otherwise hold 256,000 names."""
        name = self.names.get(rid)
        if name is not None:
            return name
        self._paged = True
        off, length = self._u64(OFF_NAMES), self._u64(OFF_NAMES + 8)
        end = min(off + length, len(self.map))
        key = struct.pack("<Q", rid)
        pos = self.map.find(key, off, end)
        while pos >= 0:
            # an entry starts the region or follows the NUL of the one before
            if pos == off or self.map[pos - 1] == 0:
                nul = self.map.find(b"\0", pos + 8, end)
                if nul >= 0:
                    name = self.map[pos + 8:nul].decode("utf-8", "surrogateescape")
                    break
            pos = self.map.find(key, pos + 1, end)
        if name is None:
            return hex(rid)
        if len(self.names) < NAMES_KEPT:
            self.names[rid] = name
        return name

    def _read(self) -> Tuple[int, int, tuple]:
        """One live_read_copy round: (mask of the layers read again, busy
        records, records per layer); the states grown first when a layer has
        more records than they hold (then read again).  With bytes moved per
        record, each layer's are updated in a copy (self._moved): the last
        snapshot's stay as they were, for the differences over the interval."""
        for _ in range(RETRIES):
            if self._call is None:
                self._call = tuple(
                    (modid, words, MOVED_FIGURES, terms.terms, terms.last, c.seq, c.figs, c.words,
                     None) for (modid, words, terms), c in zip(self._layout, self._caches))
            call = self._call
            if self.want_moved:
                self._moved = [c.moved.copy() if len(c.moved) else c.moved for c in self._caches]
                call = tuple([base[:-1] + (m,) for base, m in zip(call, self._moved)])
            try:
                mask, busy, records = _core.live_read_copy(
                    self.fd, self.size, call, *self.seq_table, RETRIES, self._head, self._out)
            except Exception:
                self._forget_readings()
                raise
            if mask >= 0:
                return mask, busy, records
            for c, n in zip(self._caches, records):
                c.grow(n)
            self._call = None                  # the arrays were replaced
        raise NotReady(self.name.path)         # growing faster than it is read

    def _forget_readings(self):
        """After a round that failed part way: the layers read before the failure
        have their seq words and figures updated, but their changes never reached
        the sums.  Every record counts as unread again, so the next round reads
        them all and rebuilds the sums (else those changes were lost for good)."""
        for c in self._caches:
            c.forget()
        self._records, self._last_layers = (), {}

    def _layers(self, mask: int, records: tuple) -> Dict[str, LayerRecords]:
        """The snapshot's layers: those read again anew, the others as before."""
        if mask == 0 and records == self._records:
            return self._last_layers
        old, layers = self._last_layers, {}
        for j, (layer, cache) in enumerate(zip(LAYERS, self._caches)):
            n = records[j]
            if mask >> j & 1:
                cache.changed(float(self._out[j, 3]), self._out[j, 4:],
                              self._moved[j] if self.want_moved else None)
            elif n and layer in old and n == self._records[j]:
                layers[layer] = old[layer]
                continue
            if n:
                moved = cache.moved if cache.moved is None or len(cache.moved) == n else \
                    cache.moved[:n]
                layers[layer] = LayerRecords(moved, cache.sums, cache.last,
                                             self._id_readers[j])
        self._last_layers, self._records = layers, records
        return layers

    def _id_reader(self, modid: int, words: int) -> Callable[[int], int]:
        """record_id for LayerRecords: record i's id, from the region as it is
        now (a record's id never changes once the record exists)."""
        def record_id(i: int) -> int:
            self._paged = True
            return self._u64(self._u64(OFF_MODS + 16 * modid) + i * words * 8)
        return record_id

    def keep_moved(self, on: bool):
        """Keep (and update) the bytes moved per record from now on, or stop
        and drop them.  Started from the figures kept (the records read so far)."""
        if on == self.want_moved:
            return
        self.want_moved = on
        for c in self._caches:
            c.moved = c.figs[:, BYTES_READ] + c.figs[:, BYTES_WRITTEN] if on else None
        self._records, self._last_layers = (), {}     # the next snapshot's layers are new

    def records(self, layer: str) -> np.ndarray:
        """The layer's records as last read (int64 words; keep_records only)."""
        cache = self.cache.get(layer)
        return cache.words.copy() if cache is not None and cache.words is not None else None

    def snapshot(self, now: float) -> ProcessSnapshot:
        mask, busy, records = self._read()
        uid, start, end_sec, nprocs, jobid, exe = self._job(self._head)
        self.jobid = jobid
        layers = self._layers(mask, records)
        # Pages read through the map (names, record ids) are the process's
        # (tmpfs): drop them from this process's page tables so that its
        # resident size stays its own.
        if self._paged:
            self.map.madvise(mmap.MADV_DONTNEED)
            self._paged = False
        if now - self._alive_at >= ALIVE_EVERY:
            self._alive, self._alive_at = process_alive(self.name.pid, start), now
        partial_bits = struct.unpack_from("<Q", self._head, OFF_PARTIAL)[0]
        if partial_bits != self._partial[0]:
            self._partial = (partial_bits, [module_info(m).name for m in range(64)
                                            if partial_bits >> m & 1 and _known(m)])
        return ProcessSnapshot(
            path=self.name.path, jobid=jobid, pid=self.name.pid, rank=self.name.rank,
            nprocs=nprocs, uid=uid, exe=exe, start=start,
            alive=self._alive, finished=end_sec != 0,
            partial=self._partial[1], layers=layers, busy=busy, checked=self.checked,
            taken=now)


def _pread(fd: int, length: int, off: int, path: str) -> bytes:
    """length bytes at off; TruncatedLogError when the file ends before."""
    data = os.pread(fd, length, off)
    if len(data) != length:
        raise _core.TruncatedLogError(f"{path}: cut at {off + len(data)} bytes, "
                                      f"{off + length} needed")
    return data


def _known(modid: int) -> bool:
    try:
        module_info(modid)
        return True
    except Exception:
        return False

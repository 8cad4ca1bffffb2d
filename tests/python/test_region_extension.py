"""Our extension modules outside the header's module map (docs/regions.md, "The
REGION module (format)"): the library writer puts REGION's region after the last
module region and names it in the job metadata key iolens_ext; the reader shows it
as if the map held it.  Logs built with iolens.Writer, read back with our reader."""
from pathlib import Path

import numpy as np
import pytest

iolens = pytest.importorskip("iolens")

REGION = 41


def _rows(module, n):
    info = iolens.module_info(module)
    ints = np.arange(n * len(info.counters), dtype=np.int64).reshape(n, -1) % 97
    flts = np.zeros((n, len(info.fcounters)), np.float64)
    return ints, flts


def write_region_log(path: Path, metadata="lib_ver=test\n", partial=0, compression="zlib"):
    """A log with one POSIX record and two REGION records."""
    names = ["/data/a", "epoch 0", "checkpoint"]
    ids = np.array([iolens.record_id(n) for n in names], np.uint64)
    with iolens.Writer(path, compression) as w:
        w.set_job(nprocs=1, jobid=3, metadata=metadata, exe="/bin/app", mounts=[("/", "ext4")])
        w.add_names(ids, names)
        w.put_records("POSIX", ids[:1], np.array([0]), *_rows("POSIX", 1))
        w.put_records("REGION", ids[1:], np.array([0, 0]), *_rows("REGION", 2))
        w.set_partial(partial)
    return path


def header_slot(path, module):
    raw = Path(path).read_bytes()[48 + 16 * module:48 + 16 * module + 16]
    return int.from_bytes(raw[:8], "little"), int.from_bytes(raw[8:], "little")


@pytest.mark.parametrize("compression", ["zlib", "bzip2", "none"])
def test_region_is_read_back_from_outside_the_map(tmp_path, compression):
    log = write_region_log(tmp_path / "r.darshan", compression=compression)
    assert header_slot(log, REGION) == (0, 0)
    assert b"iolens_ext=41:1:" in Path(log).read_bytes() or compression != "none"
    with iolens.open(log) as lg:
        assert lg.modules["REGION"]["version"] == 1
        assert len(lg.records("REGION")) == 2 and len(lg.records("POSIX")) == 1
        assert lg.metadata_text == "lib_ver=test\n"     # the key is hidden


def test_region_partial_bit_travels_in_the_key(tmp_path):
    """REGION's partial bit is not in the header's flag (upstream's) but in its entry."""
    log = write_region_log(tmp_path / "r.darshan", partial=(1 << REGION) | (1 << 1))
    raw = Path(log).read_bytes()
    assert int.from_bytes(raw[24:32], "little") == 1 << 1
    with iolens.open(log) as lg:
        assert lg.modules["REGION"]["partial"] and lg.modules["POSIX"]["partial"]


def test_no_room_in_the_metadata_leaves_regions_out(tmp_path):
    """Metadata too full for the key: REGION is left out, the note iolens_ext=omitted
    is written when it fits, and the rest of the log reads."""
    full = "".join(f"k{i:03d}={'v' * 20}\n" for i in range(36))     # 36 * 26 = 936 bytes
    # 1001 bytes: 22 left, less than the key's line needs, room for the note
    log = write_region_log(tmp_path / "r.darshan", metadata=full + "pad=" + "p" * 60 + "\n")
    with iolens.open(log) as lg:
        assert "REGION" not in lg.modules and len(lg.records("POSIX")) == 1
        assert lg.metadata_text.endswith("iolens_ext=omitted\n")
    full_up = full + "pad=" + "p" * 81 + "\n"                       # 1022 bytes: no note
    log = write_region_log(tmp_path / "s.darshan", metadata=full_up)
    with iolens.open(log) as lg:
        assert "REGION" not in lg.modules and lg.metadata_text == full_up


def test_a_stale_key_in_the_input_metadata_is_replaced(tmp_path):
    """A job whose metadata already carries iolens_ext (hand-made, or copied) gets
    the writer's own line: the reader never follows a stale one."""
    log = write_region_log(tmp_path / "r.darshan",
                           metadata="iolens_ext=41:1:5:5:0\nlib_ver=test\n")
    with iolens.open(log) as lg:
        assert len(lg.records("REGION")) == 2 and lg.metadata_text == "lib_ver=test\n"


def test_logs_without_extension_modules_are_unchanged(tmp_path):
    """No extension module: no key, nothing moved (the layout upstream's tools write)."""
    names = ["/data/a"]
    ids = np.array([iolens.record_id(n) for n in names], np.uint64)
    path = tmp_path / "p.darshan"
    with iolens.Writer(path) as w:
        w.set_job(nprocs=1, metadata="lib_ver=test\n", exe="/bin/app")
        w.add_names(ids, names)
        w.put_records("POSIX", ids, np.array([0]), *_rows("POSIX", 1))
    assert b"iolens_ext" not in Path(path).read_bytes()
    with iolens.open(path) as lg:
        assert list(lg.modules) == ["POSIX"] and lg.metadata_text == "lib_ver=test\n"


def test_the_earlier_form_with_region_in_the_map_still_reads(tmp_path):
    """A log of the branch's first form (REGION in slot 41 of the map, no key) reads."""
    log = write_region_log(tmp_path / "r.darshan", compression="none")
    raw = bytearray(Path(log).read_bytes())
    at = raw.index(b"iolens_ext=")
    end = raw.index(b"\n", at)
    _, ver, off, length, _ = raw[at + len(b"iolens_ext="):end].decode().split(":")
    raw[at:end] = b"x=" + b"y" * (end - at - 2)          # the key gone, same length
    names_off = int.from_bytes(raw[32:40], "little")
    raw[48 + 16 * REGION:48 + 16 * REGION + 16] = (
        (names_off + int(off)).to_bytes(8, "little") + int(length).to_bytes(8, "little"))
    raw[1072 + 4 * REGION:1072 + 4 * REGION + 4] = int(ver).to_bytes(4, "little")
    old = tmp_path / "old.darshan"
    old.write_bytes(bytes(raw))
    with iolens.open(old) as lg:
        assert len(lg.records("REGION")) == 2 and len(lg.records("POSIX")) == 1

"""Platform facts in the job metadata (docs/runtime.md, "Platform data"): what the
runtime records about the node, the scheduler and the mounts, the 1 KiB budget,
and that darshan-parser and PyDarshan 3.5.0 read such logs."""
import os
import re
import socket
import subprocess
from pathlib import Path

import pytest

import iolens
from iolens.platform import PLATFORM_KEYS, expand_hostlist
from rt_helpers import logs_in, run_under

UPSTREAM_PARSER = Path("/opt/upstream-3.5.0/bin/darshan-parser")
SCHEDULER_PREFIXES = ("SLURM_", "PBS_", "LSB_", "FLUX_")


@pytest.fixture(autouse=True)
def no_scheduler(monkeypatch):
    """The tests set the scheduler variables they mean; none leak in from outside."""
    for key in list(os.environ):
        if key.startswith(SCHEDULER_PREFIXES):
            monkeypatch.delenv(key)


def write_log(runtime, tmp_path, env=None, name="run"):
    """One process writing 16 KiB under tmp_path; returns its log."""
    logdir, data = tmp_path / f"logs-{name}", tmp_path / f"{name}.dat"
    run_under(runtime, ["dd", "if=/dev/zero", f"of={data}", "bs=4096", "count=4"], logdir,
              extra_env=env)
    logs = logs_in(logdir)
    assert len(logs) == 1, logs
    return logs[0], data


def metadata_text(log):
    with iolens.open(log) as lg:
        return lg.metadata_text


def holder_of(lg, path):
    """The mount-table row of log `lg` holding `path` (longest mount point)."""
    return max((m for m in lg.mount_facts.itertuples() if m.source == "mount table"
                and str(path).startswith(m.mount.rstrip("/") + "/")), key=lambda m: len(m.mount))


def cpu_model():
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("model name"):
            return " ".join(line.split(":", 1)[1].split())
    return None


def test_node_facts(runtime, tmp_path):
    log, data = write_log(runtime, tmp_path)
    with iolens.open(log) as lg:
        p = lg.platform
        holder = holder_of(lg, data)
        nmounts = len(lg.mounts)
    assert p["nnodes"] == "1" and p["ppn"] == "1"
    assert p["hosts"] == socket.gethostname()
    assert "sched" not in p                               # no scheduler: no geometry
    online, allowed = os.cpu_count(), len(os.sched_getaffinity(0))
    assert p["cores"] == (str(online) if allowed >= online else f"{online},aff:{allowed}")
    mem_kib = int(re.search(r"MemTotal:\s+(\d+)", Path("/proc/meminfo").read_text()).group(1))
    assert abs(int(p["mem_mib"]) - mem_kib // 1024) <= 1
    if cpu_model():
        assert p["cpu"] == cpu_model()[:64]
    nvidia = [d for d in os.listdir("/dev") if re.fullmatch(r"nvidia\d+", d)]
    drm = Path("/sys/class/drm")
    vendors = {"0x1002", "0x8086", "0x10de"}                  # AMD, Intel, NVIDIA
    gpus = nvidia or Path("/proc/driver/nvidia/gpus").exists() or (
        drm.is_dir() and any(c.name.startswith("card") and "-" not in c.name
                             and (c / "device" / "vendor").exists()
                             and (c / "device" / "vendor").read_text().strip() in vendors
                             for c in drm.iterdir()))
    assert ("gpu" in p) == bool(gpus)
    if nvidia and "gpu" in p:
        assert p["gpu"].startswith(f"{len(nvidia)}x")
    # mntfs: one token per mount; the mount of the data file was looked up
    assert len(p["mntfs"].split(",")) == nmounts
    assert holder.block_size == os.statvfs(data).f_bsize
    if holder.fs_type in ("ext4", "xfs", "overlay", "tmpfs", "btrfs"):
        assert holder.kind == "node-local"
    # every key is in the table, and the text is strict key=value lines
    keys = {k for k, *_ in PLATFORM_KEYS}
    assert set(p) <= keys
    assert all(re.fullmatch(r"[a-z_]+=[^\n]*", ln) for ln in metadata_text(log).splitlines())


def test_tmpfs_mounts_listed(runtime, tmp_path):
    log, _ = write_log(runtime, tmp_path)
    tmpfs = [ln.split()[1] for ln in Path("/proc/self/mounts").read_text().splitlines()
             if ln.split()[2] == "tmpfs" and "rw" in ln.split()[3].split(",")]
    with iolens.open(log) as lg:
        listed = lg.platform.get("tmpfs", "").split(",")
    if "/dev/shm" in tmpfs:
        assert "/dev/shm" in listed
    assert not [p for p in listed if p.startswith(("/run/", "/sys/", "/proc"))]
    assert len(listed) == len(set(listed))


def test_slurm_geometry(runtime, tmp_path):
    env = {"SLURM_JOB_ID": "77", "SLURM_NTASKS": "8", "SLURM_CPUS_PER_TASK": "2",
           "SLURM_JOB_PARTITION": "debug", "SLURM_JOB_NUM_NODES": "3",
           "SLURM_JOB_NODELIST": "nid[001-002],login7", "SLURM_TASKS_PER_NODE": "3(x2),2"}
    log, _ = write_log(runtime, tmp_path, env)
    with iolens.open(log) as lg:
        p = lg.platform
    assert p["sched"] == "slurm,tasks:8,cpt:2,part:debug"
    assert p["nnodes"] == "3" and p["ppn"] == "2-3"
    assert expand_hostlist(p["hosts"]) == ["nid001", "nid002", "login7"]


def test_pbs_node_file(runtime, tmp_path):
    nodefile = tmp_path / "nodes"
    nodefile.write_text("cn09\n" * 4 + "cn10\n" * 4 + "cn11\n" * 2 + "gpu1\n")
    log, _ = write_log(runtime, tmp_path, {"PBS_JOBID": "12.server", "PBS_NODEFILE": str(nodefile),
                                           "PBS_QUEUE": "batch", "PBS_NP": "11"})
    with iolens.open(log) as lg:
        p = lg.platform
    assert p["sched"] == "pbs,tasks:11,part:batch"
    assert p["nnodes"] == "4" and p["ppn"] == "1-4"
    assert p["hosts"] == "cn[09-11],gpu1"


def test_lsf_hosts(runtime, tmp_path):
    log, _ = write_log(runtime, tmp_path, {"LSB_JOBID": "5", "LSB_MCPU_HOSTS": "a1 4 a2 4 a3 4",
                                           "LSB_DJOB_NUMPROC": "12"})
    with iolens.open(log) as lg:
        p = lg.platform
    assert p["sched"] == "lsf,tasks:12" and p["nnodes"] == "3" and p["ppn"] == "4"
    assert p["hosts"] == "a[1-3]"


def test_flux_geometry(runtime, tmp_path):
    log, _ = write_log(runtime, tmp_path, {"FLUX_JOB_ID": "f1", "FLUX_JOB_SIZE": "6",
                                           "FLUX_JOB_NNODES": "2"})
    with iolens.open(log) as lg:
        p = lg.platform
    assert p["sched"] == "flux,tasks:6" and p["nnodes"] == "2"


def test_budget_with_the_longest_values(runtime, tmp_path):
    """The longest hints the runtime takes (511 characters) and over-long scheduler
    values: the metadata stays within 1023 characters of whole key=value lines, the
    platform keys in the table's order (which keys the budget leaves out when
    there is less room: tests/runtime/test_platform_store.c)."""
    hints = ";".join(f"romio_key_{i:02d}=value_{i:04d}" for i in range(22))[:511]
    nodelist = ",".join(f"node{i:05d}" for i in range(400))                  # far over its cap
    log, _ = write_log(runtime, tmp_path, {"DARSHAN_LOGHINTS": hints, "SLURM_JOB_ID": "1",
                                           "SLURM_JOB_NODELIST": nodelist,
                                           "SLURM_JOB_PARTITION": "p" * 200,
                                           "SLURM_JOB_NUM_NODES": "400"})
    text = metadata_text(log)
    assert len(text) <= 1023 - 24 and text.endswith("\n")   # room for merged=N, recovered=1
    pairs = [ln.split("=", 1) for ln in text.splitlines()]
    assert all(len(p) == 2 and p[0] for p in pairs)
    keys = [k for k, _ in pairs]
    assert keys[:2] == ["lib_ver", "h"] and dict(pairs)["h"] == hints
    order = [k for k, *_ in PLATFORM_KEYS]
    written = [k for k in keys if k in order]
    assert written == sorted(written, key=order.index)
    assert written[:2] == ["nnodes", "ppn"] and "hosts" in written
    caps = {k: cap for k, cap, *_ in PLATFORM_KEYS}
    assert all(len(v) <= caps[k] for k, v in pairs if k in caps)
    with iolens.open(log) as lg:
        assert set(lg.platform) == set(written)


def test_budget_caps_long_values(runtime, tmp_path):
    nodelist = ",".join(f"node{i:05d}" for i in range(400))
    log, _ = write_log(runtime, tmp_path, {"SLURM_JOB_ID": "1", "SLURM_JOB_NODELIST": nodelist})
    text = metadata_text(log)
    assert len(text) <= 1023
    with iolens.open(log) as lg:
        hosts = lg.platform["hosts"]
    assert len(hosts) <= 256 and hosts.endswith(",+more")
    assert expand_hostlist(hosts) == [f"node{i:05d}" for i in range(len(expand_hostlist(hosts)))]


def test_upstream_readers_accept_platform_metadata(runtime, tmp_path):
    log, _ = write_log(runtime, tmp_path, {"SLURM_JOB_ID": "9", "SLURM_NTASKS": "4",
                                           "SLURM_JOB_NODELIST": "nid[01-04]"})
    with iolens.open(log) as lg:
        ours = lg.job["metadata"]
    assert ours["sched"] == "slurm,tasks:4"
    if UPSTREAM_PARSER.exists():
        r = subprocess.run([str(UPSTREAM_PARSER), str(log)], capture_output=True, text=True,
                           timeout=60)
        assert r.returncode == 0, r.stderr
        for key in ("nnodes", "sched", "hosts", "mntfs"):
            assert f"# metadata: {key} = {ours[key]}\n" in r.stdout
    darshan = pytest.importorskip("darshan")
    job = darshan.DarshanReport(str(log), read_all=True).metadata["job"]
    assert {k: job["metadata"][k] for k in ours} == ours


def test_report_platform_section_of_a_runtime_log(runtime, tmp_path):
    """The report of a log the runtime wrote shows the Platform section with the
    facts and the mount of the data file."""
    from iolens.report import render_html
    log, data = write_log(runtime, tmp_path, {"SLURM_JOB_ID": "3", "SLURM_NTASKS": "2"})
    with iolens.open(log) as lg:
        page = render_html(lg)
        holder = holder_of(lg, data)
    assert 'id="sec-platform"' in page and 'id="platform-table"' in page
    assert 'data-key="platform.sched.value" data-value="slurm,tasks:2"' in page
    assert (f'data-key="mount.{holder.mount}.block_size" '
            f'data-value="{os.statvfs(data).f_bsize}"') in page
    assert 'id="sec-lustre"' not in page          # no LUSTRE records: no Lustre section


def test_lustre_mount_facts_and_report_end_to_end(runtime, tmp_path):
    """A program writing on a (shimmed) Lustre mount under the runtime: the mount is
    'shared' with the Lustre block size in mntfs, and the report's Lustre section
    lists every file's striping and the OSTs that served it."""
    from iolens.report import render_html
    from test_runtime_lustre import LAYOUTS, lustre_shim, run_probe
    log = run_probe(runtime, lustre_shim(runtime), tmp_path, list(LAYOUTS))
    mnt = str((tmp_path / "lustre").resolve())
    with iolens.open(log) as lg:
        facts = lg.mount_facts.set_index("mount")
        names = set(lg.lustre()["name"])
        page = render_html(lg)
    assert facts.at[mnt, "fs_type"] == "lustre" and facts.at[mnt, "kind"] == "shared"
    assert facts.at[mnt, "block_size"] == 1 << 20
    assert names and all(n.startswith(mnt + "/") for n in names)
    assert 'id="sec-lustre"' in page and 'id="ost-table"' in page
    for name in names:
        assert f'data-key="lustre.{name}.stripe_count"' in page

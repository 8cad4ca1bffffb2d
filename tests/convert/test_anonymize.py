"""`iolens keygen` and `iolens convert --anonymize` on logs of real programs run
under the runtime: nothing identifying survives in the output bytes, pseudonyms are
stable across logs for one key and differ between keys, and the output is read by
`iolens parse`, `iolens dxt` and PyDarshan 3.5.0."""
import socket
import stat
import struct
import subprocess
from pathlib import Path

import pytest

import iolens
from iolens.platform import PLATFORM_KEYS
from conv_helpers import record_lines, run
from rt_helpers import logs_in, run_under

SECRET_WORDS = ["--projectcodename=bluefalcon", "zebraquartz77"]
DOC = Path(__file__).resolve().parents[2] / "docs" / "anonymization.md"


def doc_section(marker):
    """The lines of docs/anonymization.md after the comment naming `marker`, up to
    the first blank line."""
    lines = DOC.read_text().splitlines()
    start = next(i for i, l in enumerate(lines) if l.startswith("<!--") and marker in l)
    out = []
    for line in lines[start + 1:]:
        if not line.strip():
            break
        out.append(line)
    return out


def doc_kept_names():
    """The runtime-made names the doc says are kept as they are."""
    return {l.strip()[2:].strip("`") for l in doc_section("kept names") if l.startswith("- ")}


def doc_metadata_rules():
    """{key: "kept" | "hosts" | "hints" | "replaced"} from the doc's metadata table;
    the key "*" is the row for every other key."""
    rules = {}
    for row in doc_section("metadata rules")[2:]:
        key, value = [c.strip() for c in row.strip("|").split("|")]
        rule = value.split(":")[0].split()[0]
        rules[key.strip("`") if key.startswith("`") and key.count("`") == 2 else "*"] = rule
    return rules


@pytest.fixture(scope="session")
def copyfile(tmp_path_factory):
    exe = tmp_path_factory.mktemp("prog") / "shsecretlauncher"
    subprocess.run(["cc", "-O1", "-o", str(exe), str(Path(__file__).parent / "progs" / "copyfile.c")],
                   check=True, timeout=60)
    return exe


def traced_run(runtime, exe, tmp_path, tag, common):
    """A program copying a file under secret names, with DXT on; its log."""
    work = tmp_path / f"run-{tag}"
    (work / "secretproject_alpha").mkdir(parents=True)
    src = work / "secretproject_alpha" / f"patientrecords_{tag}.csv"
    src.write_bytes(b"x" * 10000)
    run_under(runtime, [exe, src, work / "copyout_target.dat", common, *SECRET_WORDS],
              work / "logs", extra_env={"DXT_ENABLE_IO_TRACE": "1"})
    (log,) = logs_in(work / "logs")
    return log, src


@pytest.fixture
def two_logs(runtime, copyfile, tmp_path):
    common = tmp_path / "sharedarchive_omega.bin"
    return [traced_run(runtime, copyfile, tmp_path, t, common) for t in ("one", "two")], common


def names_of(path):
    with iolens.open(path) as log:
        return dict(log.names), log.job, log.exe


def test_keygen(tool, tmp_path):
    key = tmp_path / "k"
    run(tool, "keygen", key)
    st = key.stat()
    assert stat.S_IMODE(st.st_mode) == 0o600
    text = key.read_text().strip()
    assert len(text) == 64 and int(text, 16) >= 0
    run(tool, "keygen", tmp_path / "k2")
    assert (tmp_path / "k2").read_text() != key.read_text()
    r = run(tool, "keygen", key, check=False)          # never replaces a key
    assert r.returncode == 1 and key.read_text().strip() == text
    assert run(tool, "keygen", check=False).returncode == 2


@pytest.mark.parametrize("content", ["", "abcd\n", "0123456789abcdef" * 3 + "\n", "not a key at all " * 8])
def test_refuses_weak_key(tool, two_logs, tmp_path, content):
    (log, _), _ = two_logs[0][0], None
    key = tmp_path / "weak"
    key.write_text(content)
    out = tmp_path / "o.darshan"
    r = run(tool, "convert", "--anonymize", key, log, out, check=False)
    assert r.returncode == 1 and "key" in r.stderr
    assert not out.exists()
    r = run(tool, "convert", "--anonymize", tmp_path / "missing", log, out, check=False)
    assert r.returncode == 1 and not out.exists()


def test_nothing_identifying_survives(tool, two_logs, tmp_path):
    (log, src), _ = two_logs[0][0], two_logs[1]
    key = tmp_path / "key"
    run(tool, "keygen", key)
    out = tmp_path / "anon.darshan"
    run(tool, "convert", "--anonymize", key, "--none", log, out)
    data = out.read_bytes()     # --none: every region uncompressed in the file
    names, job, exe = names_of(log)
    assert any("patientrecords_one" in n for n in names.values())
    secrets = {"secretproject_alpha", "patientrecords_one", "copyout_target", "sharedarchive_omega",
               "shsecretlauncher", *SECRET_WORDS, str(tmp_path.name)}
    secrets |= {n for n in names.values() if n.startswith("/")}
    leaked = [s for s in secrets if s.encode() in data]
    assert not leaked, leaked
    host = socket.gethostname()
    with iolens.open(out) as a:
        assert a.job["uid"] != job["uid"] and a.job["jobid"] != job["jobid"]
        hosts = set(a.dxt_records("POSIX")["hostname"])
        assert hosts and host not in hosts
        assert all(h.startswith("h") and len(h) == 17 for h in hosts)
        assert a.job["metadata"].keys() == job["metadata"].keys()
        # lib_ver, platform counts and models are kept (docs/anonymization.md); the
        # rest changes, and the hosts become the DXT host pseudonyms
        kept = {k for k, rule in doc_metadata_rules().items() if rule == "kept"}
        assert "lib_ver" in kept and "lib_ver" in job["metadata"]
        for k, v in job["metadata"].items():
            assert (a.job["metadata"][k] == v) if k in kept else (a.job["metadata"][k] != v), k
        assert set(a.job["metadata"]["hosts"].split(",")) == hosts
    if len(host) >= 4:
        assert host.encode() not in data
    # --none: the job record (uid, start s/ns, end s/ns, nprocs, jobid) follows the
    # header.  Its fields are compared, not its bytes: as root the uid is 0, and eight
    # zero bytes occur across field boundaries (nprocs 1, then a jobid ending in 0x00).
    fields = struct.unpack("<7q", data[1328:1328 + 56])
    assert fields[5] == job["nprocs"]
    assert job["jobid"] not in fields and job["uid"] not in (fields[0], fields[6]), fields
    # the zlib output holds the same, compressed
    run(tool, "convert", "--anonymize", key, log, tmp_path / "anon-z.darshan")
    assert record_lines(tool, tmp_path / "anon-z.darshan") == record_lines(tool, out)


def test_pseudonyms_stable_per_key(tool, two_logs, tmp_path):
    (l1, _), (l2, _) = two_logs[0]
    common = str(two_logs[1])
    k1, k2 = tmp_path / "k1", tmp_path / "k2"
    run(tool, "keygen", k1)
    run(tool, "keygen", k2)
    outs = {}
    for kn, key in (("k1", k1), ("k2", k2)):
        for ln, log in (("l1", l1), ("l2", l2)):
            outs[kn, ln] = tmp_path / f"{kn}-{ln}.darshan"
            run(tool, "convert", "--anonymize", key, "--keep-ext", log, outs[kn, ln])

    def common_record(path):
        """The pseudonym and id of the file both runs appended to: its POSIX record
        has the same counters in both logs (10000 bytes written)."""
        with iolens.open(path) as log:
            df = log.records("POSIX")
            hit = df[(df["POSIX_BYTES_WRITTEN"] == 10000) & df["name"].str.endswith(".bin")]
            assert len(hit) == 1, df[["name", "POSIX_BYTES_WRITTEN"]]
            return hit["name"].iloc[0], int(hit["id"].iloc[0]), log.job["uid"]

    a1, a2 = common_record(outs["k1", "l1"]), common_record(outs["k1", "l2"])
    b1 = common_record(outs["k2", "l1"])
    assert a1 == a2                      # same key: same name, id and uid across logs
    assert a1[0] != b1[0] and a1[1] != b1[1] and a1[2] != b1[2]
    assert iolens.record_id(a1[0]) == a1[1]   # ids re-derived from the pseudonyms
    assert common not in a1[0] and a1[0].endswith(".bin")


def test_keep_options(tool, two_logs, tmp_path):
    (log, src), _ = two_logs[0][0], None
    key = tmp_path / "k"
    run(tool, "keygen", key)
    with iolens.open(log) as lg:
        mounts = [p for p, _ in lg.mounts]
        orig = {n for n in lg.names.values() if n.startswith("/")}
    for opts in (["--keep-depth"], ["--keep-mounts", "--keep-ext"], []):
        out = tmp_path / f"o{len(opts)}{opts[0] if opts else ''}.darshan"
        run(tool, "convert", "--anonymize", key, *opts, log, out)
        names, _, _ = names_of(out)
        new = set(names.values())
        with iolens.open(out) as lg:
            new_mounts = [p for p, _ in lg.mounts]
        if "--keep-depth" in opts:
            depths = sorted(n.count("/") for n in orig)
            assert sorted(n.count("/") for n in new if n.startswith("/")) == depths
        if "--keep-mounts" in opts:
            assert new_mounts == mounts
            assert any(n.endswith(".csv") for n in new)
        else:
            assert not set(new_mounts) & set(mounts) - {"/"}
            assert not any(n.endswith(".csv") for n in new)


def test_readers_accept_output(tool, two_logs, tmp_path):
    darshan = pytest.importorskip("darshan", reason="PyDarshan (darshan==3.5.0) not installed")
    (log, _), _ = two_logs[0][0], None
    key = tmp_path / "k"
    run(tool, "keygen", key)
    # (not bzip2: the libdarshan-util inside the PyDarshan 3.5.0 wheel is built without
    # bzip2 and answers "invalid compression type" for any bzip2 log, docs/convert.md)
    for opts in ([], ["--condense"], ["--none", "--keep-depth"]):
        out = tmp_path / f"a{len(opts)}.darshan"
        run(tool, "convert", "--anonymize", key, *opts, log, out)
        text = run(tool, "parse", out).stdout
        assert "# darshan log version: 3.41" in text and "POSIX_BYTES_WRITTEN" in text
        assert "X_POSIX" in run(tool, "dxt", out).stdout
        names, _, _ = names_of(out)
        with darshan.DarshanReport(str(out), read_all=True) as rep:
            assert rep.metadata["job"]["jobid"] == iolens.open(out).job["jobid"]
            posix = rep.records["POSIX"].to_df()["counters"]
            assert set(posix["id"].astype("uint64")) <= set(names)
            assert len(rep.records["DXT_POSIX"]) > 0
            assert {r["hostname"] for r in rep.records["DXT_POSIX"]} <= \
                set(iolens.open(out).dxt_records("POSIX")["hostname"])


# ---------------------------------------------------------------- metadata and kept names
def test_metadata_kept_and_replaced_as_documented(tool, two_logs, tmp_path):
    """Every row of the doc's metadata table is what --anonymize does: a runtime
    log's metadata replaced by one pair per documented key (and one undocumented
    key), then anonymised.  Every key a runtime log holds is documented."""
    import re
    (log, _), _ = two_logs[0][0], None
    rules = doc_metadata_rules()
    assert {"kept", "hosts", "hints", "replaced"} >= set(rules.values()), rules
    assert rules["*"] == "replaced" and rules["lib_ver"] == "kept"
    platform = {k: {"KEEP": "kept", "HOSTS": "hosts", "HASH": "replaced"}[rule]
                for k, _cap, rule, _d in PLATFORM_KEYS}
    assert {k: rules.get(k) for k in platform} == platform     # the doc says what the table does
    with iolens.open(log) as lg:
        assert set(lg.job["metadata"]) <= set(rules) - {"*"}
    samples = {"hosts": "nodeA7,nodeB7", "h": "romio_cb_read=enable;cb_nodes=4;"
               "cb_config_list=secretnode:1"}
    annotate = [f"{k}={samples.get(k, 'v-' + k + '-9')}" for k in rules if k != "*"]
    annotate.append("projectname=bluefalcon")
    plain = tmp_path / "md.darshan"
    run(tool, "convert", "--reset-md", *sum((["--annotate", a] for a in annotate), []),
        log, plain)
    key = tmp_path / "k"
    run(tool, "keygen", key)
    out = tmp_path / "anon.darshan"
    run(tool, "convert", "--anonymize", key, plain, out)
    with iolens.open(plain) as a, iolens.open(out) as b:
        before, after = a.job["metadata"], b.job["metadata"]
    assert set(after) == set(before) == set(rules) - {"*"} | {"projectname"}
    pseudonym = re.compile(r"v[0-9a-f]{12}$")
    for k, v in before.items():
        rule = rules.get(k, rules["*"])
        if rule == "kept":
            assert after[k] == v, k
        elif rule == "replaced":
            assert pseudonym.match(after[k]), (k, after[k])
        elif rule == "hosts":
            assert [h[0] for h in after[k].split(",")] == ["h", "h"], after[k]
            assert all(re.fullmatch(r"h[0-9a-f]{16}", h) for h in after[k].split(","))
        else:
            got = dict(p.split("=", 1) for p in after[k].split(";"))
            assert got["romio_cb_read"] == "enable" and got["cb_nodes"] == "4", after[k]
            assert pseudonym.match(got["cb_config_list"]), after[k]
    assert "secretnode" not in out.read_bytes().decode("latin-1")


def crafted_log(path):
    """A log whose names look like the runtime's own but are a user's ("<...>",
    "heatmap:..."), beside the real ones: POSIX records for the file-like names,
    STDIO for <STDOUT>, HEATMAP records for heatmap:POSIX and heatmap:secretapi."""
    import numpy as np
    names = ["<secretfile>", "heatmap:secretapi", "<STDOUT", "<stdin>", "/home/u/plain.dat",
             "<STDOUT>", "heatmap:POSIX"]
    ids = [iolens.record_id(n) for n in names]
    posix = iolens.module_info("POSIX")
    stdio = iolens.module_info("STDIO")
    with iolens.Writer(path, compression="none") as w:
        w.set_job(uid=1000, start_time_sec=1700000000, end_time_sec=1700000010, nprocs=1,
                  jobid=77, metadata="lib_ver=3.4.4\n", exe="/bin/app",
                  mounts=[("/", "ext4")])
        w.add_names(ids, names)
        n = 5
        ints = np.ones((n, len(posix.counters)), dtype=np.int64)
        w.put_records("POSIX", ids[:n], [0] * n, ints,
                      np.zeros((n, len(posix.fcounters))))
        w.put_records("STDIO", [ids[5]], [0], np.ones((1, len(stdio.counters)), dtype=np.int64),
                      np.zeros((1, len(stdio.fcounters))))
        w.put_heatmap([ids[6], ids[1]], [0, 0], [0.1, 0.1], [2, 2], [1, 2, 3, 4], [5, 6, 7, 8])
    return dict(zip(names, ids))


def test_only_documented_names_kept(tool, two_logs, tmp_path):
    """Names are kept verbatim only when they are on the doc's list of runtime-made
    names; look-alikes are pseudonymised.  No original record id of a record whose
    name is not kept -- nor of a standard stream -- is in the anonymised bytes; a
    heat map keeps the fixed id of its name (PyDarshan finds the API by it)."""
    kept = doc_kept_names()
    assert kept == {"<STDIN>", "<STDOUT>", "<STDERR>", "heatmap:POSIX", "heatmap:MPIIO",
                    "heatmap:STDIO"}
    key = tmp_path / "k"
    run(tool, "keygen", key)
    src = tmp_path / "crafted.darshan"
    orig = crafted_log(src)
    (real, _), _ = two_logs[0][0], None
    with iolens.open(real) as lg:
        real_ids = dict((n, i) for i, n in lg.names.items())
        real_ids.update({str(i): int(i) for i in lg.records("POSIX")["id"]})
    for log, ids in ((src, orig), (real, real_ids)):
        out = tmp_path / f"anon-{log.stem}.darshan"
        run(tool, "convert", "--anonymize", key, "--none", log, out)
        data = out.read_bytes()            # --none: every region uncompressed
        with iolens.open(out) as a:
            names = a.names
        for name, rid in ids.items():
            if name in kept and name.startswith("heatmap:"):
                assert names.get(rid) == name          # its fixed, public id
                continue
            assert rid.to_bytes(8, "little") not in data, name
            if name in kept:
                assert name in names.values() and iolens.record_id(name) not in names
            elif not name.isdigit():
                assert name not in names.values(), name
        for secret in (b"secretfile", b"secretapi", b"<stdin>", b"plain.dat"):
            assert secret not in data
    with iolens.open(tmp_path / "anon-crafted.darshan") as a:
        hm = a.heatmap()
        apis = set(hm["api"].dropna().astype(str))
        assert "POSIX" in apis and not any("secret" in x for x in apis), apis
        assert sum(n.startswith("/f") for n in a.names.values()) == 5
    darshan = pytest.importorskip("darshan", reason="PyDarshan (darshan==3.5.0) not installed")
    with darshan.DarshanReport(str(tmp_path / "anon-crafted.darshan"), read_all=True) as rep:
        assert "POSIX" in rep.heatmaps            # found by the heat map's fixed id

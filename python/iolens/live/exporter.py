"""`iolens exporter --listen ADDR:PORT`: the live copies as Prometheus metrics.

Each scrape reads every copy this user may read (root: all) and serves the
OpenMetrics text format (or the classic Prometheus text format, by the scrape's
Accept header).  Series (docs/live.md):

- per process, ``{job, rank, layer}`` (rank: the MPI rank, or the pid for a
  process without MPI): ``iolens_bytes_read_total``, ``iolens_bytes_written_total``,
  ``iolens_read_ops_total``, ``iolens_write_ops_total``, ``iolens_metadata_ops_total``,
  ``iolens_io_seconds_total{..., op}``; and ``iolens_process_up``,
  ``iolens_process_last_io_timestamp_seconds``.  Processes beyond
  ``--max-processes`` get no series of their own (bounded cardinality); their
  job's series still count them:
- per job, ``{job, layer}``: ``iolens_job_bytes_read_total``,
  ``iolens_job_bytes_written_total``, ``iolens_job_ops_total``,
  ``iolens_job_metadata_ops_total``, ``iolens_job_processes``;
- per node: ``iolens_node_*`` the same figures summed over every process whose
  copy this exporter has seen since it started (counters that never go down),
  ``iolens_node_jobs``, ``iolens_node_processes{state}``;
- with ``--files``: ``iolens_file_bytes_total{job, layer, file}`` for at most
  ``--max-file-series`` files (the ones that moved most bytes).

A job's series end when its last copy is removed (its processes wrote their
logs, or `iolens recover` ran): the next scrape lacks them and Prometheus marks
them stale.  A job's counters include its processes that already ended, so they
never go down while the job lasts.
"""
from __future__ import annotations

import functools
import re
import socketserver
import sys
import threading
from typing import Dict, List, Tuple

import numpy as np

from .snapshot import FIGURES
from .view import LiveView

OPENMETRICS = "application/openmetrics-text; version=1.0.0; charset=utf-8"
CLASSIC = "text/plain; version=0.0.4; charset=utf-8"
PER_PROCESS = (("bytes_read", "iolens_bytes_read", "bytes read"),
               ("bytes_written", "iolens_bytes_written", "bytes written"),
               ("reads", "iolens_read_ops", "read operations"),
               ("writes", "iolens_write_ops", "write operations"),
               ("meta_ops", "iolens_metadata_ops", "metadata operations (open, stat, seek, sync, ...)"))
SECONDS = (("read_seconds", "read"), ("write_seconds", "write"), ("meta_seconds", "metadata"))


def _label(v) -> str:
    return str(v).replace("\\", "\\\\").replace("\n", "\\n").replace('"', '\\"')


@functools.lru_cache(maxsize=8192)    # the same labels every scrape: ~1 MiB kept
def _labels(**kw) -> str:
    return "{" + ",".join(f'{k}="{_label(v)}"' for k, v in kw.items()) + "}"


# The families with one series (or more) per process, in the order served.
PROCESS_FAMILIES = tuple(
    [(metric, "counter", help_ + " by one process") for _, metric, help_ in PER_PROCESS]
    + [("iolens_io_seconds", "counter", "seconds in I/O calls by one process"),
       ("iolens_process_up", "gauge", "1 while the process runs, 0 once it died"),
       ("iolens_process_last_io_timestamp_seconds", "gauge",
        "time of the process's last recorded I/O")])


def _prefixes(jobid: int, who: str, layers) -> tuple:
    """A process's lines up to their values: per layer, the starts of its five
    count lines (PER_PROCESS order) and of its three seconds lines (SECONDS
    order); the starts of its `up` and last-I/O lines."""
    per_layer = []
    for layer in layers:
        labels = _labels(job=jobid, rank=who, layer=layer)
        per_layer.append(tuple(f"{metric}_total{labels} " for _, metric, _ in PER_PROCESS)
                         + tuple(f"iolens_io_seconds_total"
                                 f"{_labels(job=jobid, rank=who, layer=layer, op=op)} "
                                 for _, op in SECONDS))
    labels = _labels(job=jobid, rank=who)
    return (per_layer, f"iolens_process_up{labels} ",
            f"iolens_process_last_io_timestamp_seconds{labels} ")


class _Prefixes:
    """Per copy, the starts of its lines (_prefixes), made again only when its
    job, rank or layers change: labels are escaped and joined once per
    process, not once per scrape."""

    def __init__(self):
        self.kept: Dict[str, tuple] = {}

    def of(self, s, who: str) -> tuple:
        names = (s.jobid, who, *s.layers)
        kept = self.kept.get(s.path)
        if kept is None or kept[0] != names:
            kept = self.kept[s.path] = (names, _prefixes(s.jobid, who, s.layers))
        return kept[1]

    def keep_only(self, paths):
        """Forget the copies not in paths (gone, or beyond --max-processes)."""
        for path in self.kept.keys() - paths:
            del self.kept[path]


COUNT_FIGURES = [FIGURES.index(key) for key, _, _ in PER_PROCESS]
SECOND_FIGURES = [FIGURES.index(key) for key, _ in SECONDS]


def _columns(vectors: List[np.ndarray]) -> List[list]:
    """Per figure (FIGURES order), its values over the vectors, as floats."""
    if not vectors:
        return [[] for _ in FIGURES]
    return np.array(vectors).T.tolist()


def _count_lines(starts: List[tuple], column: list, j: int) -> List[str]:
    """Lines of count family j, one per start tuple.  Counts are whole numbers
    (int64 counters summed): printed as integers, the text %.17g gives below
    1e17, in half the time."""
    return [f"{p[j]}{int(v)}" for p, v in zip(starts, column)]


def _job_starts(jobid: int, layer: str) -> tuple:
    """The starts of a job's five count lines of a layer (PER_PROCESS order)."""
    labels = _labels(job=jobid, layer=layer)
    return tuple(f"{metric.replace('iolens_', 'iolens_job_')}_total{labels} "
                 for _, metric, _ in PER_PROCESS)


def _sums(s) -> Dict[str, np.ndarray]:
    """A snapshot's figures per layer, as vectors in FIGURES order."""
    return {layer: r.sums for layer, r in s.layers.items()}


def _figures(sums: Dict[str, np.ndarray]) -> List[Tuple[str, Dict[str, float]]]:
    """(layer, figure name -> value) of vectors, for the families' samples."""
    return [(layer, dict(zip(FIGURES, v.tolist()))) for layer, v in sums.items()]


class Metrics:
    """The state kept between scrapes: the view and the finished processes'
    last figures, per job and for the node."""

    def __init__(self, dirs, max_processes=10000, files=False, max_file_series=100):
        self.view = LiveView(dirs, moved=files)   # bytes per record: --files only
        self.max_processes = max_processes
        self.files = files
        self.max_file_series = max_file_series
        # figures per layer as vectors in FIGURES order (never changed in place)
        self.ended_job: Dict[Tuple[int, int], Dict[str, np.ndarray]] = {}
        self.node: Dict[str, np.ndarray] = {}
        self.node_seen: Dict[str, dict] = {}      # path -> its layers (LayerRecords) as last read
        self.prefixes = _Prefixes()
        self.job_starts: Dict[Tuple[int, str], tuple] = {}   # this scrape's jobs only
        self.lock = threading.Lock()

    @staticmethod
    def _add(into, sums):
        """into[layer] += sums[layer], per layer (new vectors: those added may
        be a snapshot's, which are shared)."""
        for layer, v in sums.items():
            acc = into.get(layer)
            into[layer] = v if acc is None else acc + v

    def _round(self):
        """Poll; fold the figures of copies removed this round into their job
        (while it lasts) and the node."""
        self.view.poll()
        for s in self.view.removed:
            self._add(self.ended_job.setdefault((s.uid, s.jobid), {}), _sums(s))
            self.node_seen.pop(s.path, None)
            self._add(self.node, _sums(s))
        live_jobs = {(s.uid, s.jobid) for s in self.view.now.values()}
        for key in list(self.ended_job):
            if key not in live_jobs:
                del self.ended_job[key]      # the job is gone: its series end
        for s in self.view.now.values():
            self.node_seen[s.path] = s.layers       # (never changed in place)

    def render(self, openmetrics: bool) -> str:
        with self.lock:
            self._round()
            return self._text(openmetrics)

    def _text(self, om: bool) -> str:
        out: List[str] = []
        procs = sorted(self.view.now.values(), key=lambda s: (s.jobid, s.rank, s.pid))
        shown = procs[:self.max_processes]

        def head(name, kind, help_):
            fam = name if (om or kind != "counter") else name + "_total"
            out.append(f"# TYPE {fam} {kind}")
            out.append(f"# HELP {fam} {help_}")

        def family(name, kind, help_, samples):
            head(name, kind, help_)
            prefix = name + ("_total" if kind == "counter" else "")
            out.extend([f"{prefix}{labels} {value:.17g}" for labels, value in samples])

        def who(s):
            return str(s.rank) if s.nprocs > 1 else str(s.pid)

        # Family by family over every process (a list comprehension per
        # family, not a dozen calls per process): a row per (process, layer).
        prefixes = [self.prefixes.of(s, who(s)) for s in shown]
        self.prefixes.keep_only({s.path for s in shown})
        starts = [p for pre in prefixes for p in pre[0]]
        cols = _columns([r.sums for s in shown for r in s.layers.values()])
        for j, k in enumerate(COUNT_FIGURES):
            head(*PROCESS_FAMILIES[j])
            out.extend(_count_lines(starts, cols[k], j))
        head(*PROCESS_FAMILIES[len(PER_PROCESS)])
        seconds = [cols[k] for k in SECOND_FIGURES]
        out.extend([f"{p[len(PER_PROCESS) + o]}{seconds[o][i]:.17g}"
                    for i, p in enumerate(starts) for o in range(len(SECONDS))])
        head(*PROCESS_FAMILIES[-2])
        out.extend([f"{pre[1]}{1 if s.alive else 0}" for s, pre in zip(shown, prefixes)])
        head(*PROCESS_FAMILIES[-1])
        out.extend([f"{pre[2]}{s.last_io:.17g}" for s, pre in zip(shown, prefixes)
                    if s.last_io is not None])

        jobs: Dict[Tuple[int, int], Dict[str, np.ndarray]] = {}
        count: Dict[Tuple[int, int], int] = {}
        for s in procs:
            key = (s.uid, s.jobid)
            acc = jobs.get(key)
            if acc is None:
                acc = jobs[key] = {}
            for layer, r in s.layers.items():     # Metrics._add, inline: once a process
                v = acc.get(layer)
                acc[layer] = r.sums if v is None else v + r.sums
            count[key] = count.get(key, 0) + 1
        for key, ended in self.ended_job.items():
            if key in jobs:
                self._add(jobs[key], ended)
        jobrows = sorted(jobs.items())
        self.job_starts = {(j, layer): self.job_starts.get((j, layer)) or _job_starts(j, layer)
                           for (_, j), layers in jobrows for layer in layers}
        starts = [self.job_starts[(j, layer)] for (_, j), layers in jobrows for layer in layers]
        cols = _columns([v for _, layers in jobrows for v in layers.values()])
        for j, (k, (_, metric, help_)) in enumerate(zip(COUNT_FIGURES, PER_PROCESS)):
            head(metric.replace("iolens_", "iolens_job_"), "counter",
                 help_ + " by a job's processes")
            out.extend(_count_lines(starts, cols[k], j))
        family("iolens_job_processes", "gauge", "processes of the job with a copy here",
               [(_labels(job=j), count[(u, j)]) for (u, j), _ in jobrows])

        node: Dict[str, np.ndarray] = {}
        self._add(node, self.node)
        for layers in self.node_seen.values():
            for layer, r in layers.items():
                v = node.get(layer)
                node[layer] = r.sums if v is None else v + r.sums
        node_rows = _figures(dict(sorted(node.items())))
        for key, metric, help_ in PER_PROCESS:
            name = metric.replace("iolens_", "iolens_node_")
            family(name, "counter", help_ + " on this node since the exporter started",
                   [(_labels(layer=layer), figs[key]) for layer, figs in node_rows])
        family("iolens_node_jobs", "gauge", "jobs with a copy on this node",
               [("", len(jobs))])
        alive = sum(1 for s in procs if s.alive)
        family("iolens_node_processes", "gauge", "processes with a copy on this node",
               [(_labels(state="running"), alive), (_labels(state="ended"), len(procs) - alive)])
        if self.files:
            self._file_series(family)
        if om:
            out.append("# EOF")
        return "\n".join(out) + "\n"

    def _file_series(self, family):
        acc: Dict[Tuple[int, str, str], float] = {}
        for s in self.view.now.values():
            reader = self.view.readers.get(s.path)
            for layer, recs in s.layers.items():
                moved = recs.moved
                for i in moved.nonzero()[0]:
                    rid = recs.record_id(int(i))
                    name = reader.name_of(rid) if reader else hex(rid)
                    k = (s.jobid, layer, name)
                    acc[k] = acc.get(k, 0.0) + float(moved[i])
        top = sorted(acc.items(), key=lambda kv: -kv[1])[:self.max_file_series]
        family("iolens_file_bytes", "counter", "bytes moved to and from one file by a job "
               f"(the {self.max_file_series} busiest files)",
               [(_labels(job=j, layer=layer, file=f), v) for (j, layer, f), v in top])


def parse_args(argv):
    from .._verb import make_parser
    p = make_parser("exporter", description="Serve the live I/O of this node's jobs as "
                    "Prometheus/OpenMetrics metrics (docs/live.md).")
    p.add_argument("--listen", default="127.0.0.1:9464", metavar="ADDR:PORT",
                   help="address and port to serve /metrics on (default 127.0.0.1:9464)")
    p.add_argument("--dir", action="append", default=[], metavar="DIR",
                   help="where the copies are (default as `iolens top`); repeatable")
    p.add_argument("--max-processes", type=int, default=10000, metavar="N",
                   help="processes that get series of their own (default 10000)")
    p.add_argument("--files", action="store_true",
                   help="also series per file (file names are labels: off by default)")
    p.add_argument("--max-file-series", type=int, default=100, metavar="N",
                   help="with --files: at most N file series (default 100)")
    args = p.parse_args(argv)
    m = re.fullmatch(r"\[?([^\]]*)\]?:(\d+)", args.listen)
    if not m or int(m.group(2)) > 65535:
        p.error(f"--listen {args.listen}: not ADDR:PORT")
    args.addr, args.port = m.group(1), int(m.group(2))
    return args


class _Server(socketserver.ThreadingTCPServer):
    allow_reuse_address = True
    daemon_threads = True


def _read_request(rfile) -> Tuple[str, str, str]:
    """(method, path, Accept header) of an HTTP/1.x request; ("", "", "") when
    it is not one.  (Not http.server: it and the modules it imports, ssl and
    email among them, are 8 MiB of the exporter's resident size.)"""
    parts = rfile.readline(8192).decode("latin-1").split()
    accept = ""
    for _ in range(100):                     # headers, up to the blank line
        line = rfile.readline(8192)
        if line in (b"\r\n", b"\n", b""):
            break
        name, _, value = line.decode("latin-1").partition(":")
        if name.strip().lower() == "accept":
            accept = value.strip()
    if len(parts) != 3 or not parts[2].startswith("HTTP/1."):
        return "", "", ""
    return parts[0], parts[1], accept


def serve(args, ready=None):
    metrics = Metrics(args.dir, args.max_processes, args.files, args.max_file_series)

    class Handler(socketserver.StreamRequestHandler):
        timeout = 30           # a client that sends nothing does not keep its thread

        def handle(self):
            """One request a connection (HTTP/1.0: the connection then closes)."""
            try:
                method, path, accept = _read_request(self.rfile)
            except OSError:
                return
            if not method:
                self._reply(400, "Bad Request", CLASSIC, b"bad request\n")
            elif method not in ("GET", "HEAD"):
                self._reply(405, "Method Not Allowed", CLASSIC, b"GET only\n")
            elif path.split("?")[0] not in ("/metrics", "/"):
                self._reply(404, "Not Found", CLASSIC, b"not found: try /metrics\n")
            else:
                om = "application/openmetrics-text" in accept
                body = metrics.render(om).encode()
                self._reply(200, "OK", OPENMETRICS if om else CLASSIC,
                            b"" if method == "HEAD" else body, len(body))

        def _reply(self, code, reason, ctype, body, length=None):
            head = (f"HTTP/1.0 {code} {reason}\r\nContent-Type: {ctype}\r\n"
                    f"Content-Length: {len(body) if length is None else length}\r\n"
                    "Connection: close\r\n\r\n")
            try:
                self.wfile.write(head.encode("latin-1") + body)
            except OSError:                  # the scraper went away
                pass

    server = _Server((args.addr, args.port), Handler)
    print(f"iolens exporter: serving http://{args.addr}:{server.server_address[1]}/metrics",
          file=sys.stderr, flush=True)
    try:
        server.serve_forever()
    finally:
        server.server_close()
        metrics.view.close()
    return 0


def main(argv=None) -> int:
    from .._verb import run_verb
    return run_verb("iolens exporter", parse_args, serve, argv)


if __name__ == "__main__":
    sys.exit(main())

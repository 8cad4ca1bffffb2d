"""`iolens fleet {ingest,query,job-stats,file-stats,report}` (entry point iolens-fleet)."""
from __future__ import annotations

import os
import re
import sys
import tempfile

from .._meta import summary_modules
from .._text import printable
from .classes import ConfigError, StorageClasses
from .stats import FILE_ORDER, JOB_ORDER

# The `fleet` extra (pyproject.toml); without it every subcommand says so in one line.
FLEET_MODULES = ("pyarrow", "duckdb", "dask", "distributed")
INSTALL = "pip install 'iolens[fleet]'"


def _ingest_args(p):
    p.add_argument("logdirs", nargs="+", metavar="LOGDIR", help="log directories or files")
    p.add_argument("--store", required=True, help="store directory (created if needed)")
    p.add_argument("--config", help="facility config (TOML) mapping mount points to storage classes")
    p.add_argument("-j", "--jobs", type=int, default=0,
                   help="local worker processes (default: one per core)")
    p.add_argument("--dask", metavar="ADDRESS",
                   help="run on an existing Dask distributed scheduler instead")
    p.add_argument("--batch", type=int, default=2000, help="logs per committed batch")
    p.add_argument("--no-findings", action="store_true",
                   help="skip the diagnosis findings even when iolens.diagnose is installed")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress output")


def _stats_args(p, orders):
    p.add_argument("log_paths", nargs="*", help="a fleet store, or log files")
    p.add_argument("--log_paths_file", help="file listing log paths, one per line")
    # the modules with darshan-parser figures (modules.def `summary`), as
    # PyDarshan's job_stats/file_stats take POSIX, MPI-IO and STDIO
    p.add_argument("--module", "-m", default="POSIX", choices=list(summary_modules()))
    p.add_argument("--order_by", "-o", default="total_bytes", choices=orders)
    p.add_argument("--limit", "-l", type=int, default=-1)
    p.add_argument("--csv", "-c", action="store_true", help="CSV output")
    p.add_argument("--exclude_names", "-e", action="append",
                   help="regex (Python, searched in the record name) of records to leave out; repeatable")
    p.add_argument("--include_names", "-i", action="append",
                   help="regex of the only records to count; repeatable")


def parse_args(argv):
    from .._verb import make_parser
    parser = make_parser("fleet", description="Facility-wide analytics over many logs.")
    sub = parser.add_subparsers(dest="cmd", required=True)
    _ingest_args(sub.add_parser("ingest", help="read logs into a Parquet store"))
    q = sub.add_parser("query", help="run SQL (or a named query) over a store with DuckDB")
    q.add_argument("store")
    q.add_argument("sql", nargs="?", help="SQL text or the name of a named query")
    q.add_argument("--list", action="store_true", help="list the named queries")
    q.add_argument("--limit", type=int, default=20, help="rows of the top-N named queries")
    q.add_argument("--csv", action="store_true", help="CSV output")
    _stats_args(sub.add_parser("job-stats", help="PyDarshan job_stats columns"), JOB_ORDER)
    _stats_args(sub.add_parser("file-stats", help="PyDarshan file_stats columns"), FILE_ORDER)
    r = sub.add_parser("report", help="self-contained HTML dashboard of a store")
    r.add_argument("store")
    r.add_argument("-o", "--output", default="fleet.html")
    return parser.parse_args(argv)


def cmd_ingest(a) -> int:
    from .ingest import ingest
    classes = StorageClasses.load(a.config)
    ingest(a.logdirs, a.store, classes=classes, workers=a.jobs, dask=a.dask, batch=a.batch,
           with_findings=not a.no_findings, quiet=a.quiet)
    return 0


def _print(df, csv: bool) -> None:
    if csv:
        sys.stdout.write(df.to_csv(index=False))
    else:
        import pandas as pd
        with pd.option_context("display.max_rows", None, "display.max_columns", None,
                               "display.width", 200):
            print(df.to_string(index=False))


def cmd_query(a) -> int:
    from . import named
    from .query import connect
    if a.list or not a.sql:
        for name, (_, text) in named.NAMED.items():
            print(f"{name:18} {text}")
        return 0
    text = named.sql(a.sql, a.limit) if a.sql in named.NAMED else a.sql
    with connect(a.store) as con:
        _print(con.execute(text).df(), a.csv)
    return 0


_ERROR_CLASS = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*: ")


def _unusable(a, con, paths) -> int:
    """Name on stderr every given log the throw-away store quarantined; their count."""
    from .logfiles import log_key
    given = {log_key(p): printable(p) for p in paths}
    rows = con.execute("SELECT log_key, reason FROM quarantine ORDER BY log_key").fetchall()
    for key, why in rows:
        # the store keeps the error's class for grouping; the user reads what went wrong
        said = _ERROR_CLASS.sub("", why, count=1)
        print(f"iolens fleet {a.cmd}: {given.get(key, key)}: {said}", file=sys.stderr)
    return len(rows)


def _missing(a, paths) -> list:
    """The paths that exist; each one that does not is named on stderr."""
    out = []
    for p in paths:
        if os.path.lexists(p):
            out.append(p)
        else:
            print(f"iolens fleet {a.cmd}: {printable(p)}: no such file or directory",
                  file=sys.stderr)
    return out


def _stats(a, which) -> int:
    from .ingest import ingest
    from .names import NameFilter
    from .query import connect
    from .store import is_store
    from . import stats
    paths = list(a.log_paths)
    if a.log_paths_file:
        # paths are bytes: a line that is not UTF-8 still names its file
        with open(a.log_paths_file, encoding="utf-8", errors="surrogateescape") as fh:
            paths += [line.strip() for line in fh if line.strip()]
    if not paths:
        raise ValueError("no store or log paths given")
    names = NameFilter.from_args(a.include_names, a.exclude_names)
    bad = 0
    with tempfile.TemporaryDirectory(prefix="iolens-fleet-") as tmp:
        if len(paths) == 1 and is_store(paths[0]):
            store = paths[0]
            if names is not None and which == "job":
                # A store keeps job totals over all records; filtered totals need the logs.
                raise ValueError("--include_names/--exclude_names with job-stats need the log "
                                 "files (or --log_paths_file), not a store")
        else:   # plain logs: a throw-away store holding only the records that pass
            store = os.path.join(tmp, "store")
            found = _missing(a, paths)
            bad = len(paths) - len(found)
            if not found:   # nothing to ingest makes no store: every path was named
                return 1
            ingest(found, store, with_findings=False, quiet=True, names=names)
            if not is_store(store):   # only directories, and no log in any of them
                for p in found:
                    print(f"iolens fleet {a.cmd}: {printable(p)}: no logs found", file=sys.stderr)
                return 1
        with connect(store) as con:
            df = stats.job_stats(con, a.module) if which == "job" else stats.file_stats(con, a.module)
            if store != paths[0]:   # log files given: the ones that could not be used
                bad += _unusable(a, con, paths)
    if names is not None and which == "file" and not df.empty:
        df = df[[names.keeps(f) for f in df["file"]]]   # a store's file rows are per name
    if not df.empty:
        _print(stats.order(df, a.order_by, a.limit), a.csv)
    return 1 if bad else 0


def cmd_report(a) -> int:
    from .dashboard import write
    out = write(a.store, a.output)
    print(f"fleet report written to {os.path.abspath(out)}")
    return 0


def main(argv=None) -> int:
    a = parse_args(sys.argv[1:] if argv is None else argv)
    try:
        return _run(a)
    except ModuleNotFoundError as e:
        if (e.name or "").split(".")[0] not in FLEET_MODULES:
            raise
        print(f"iolens fleet {a.cmd}: needs the optional fleet dependencies ({e.name} is not "
              f"installed): {INSTALL}", file=sys.stderr)
        return 1


def _run(a) -> int:
    from .store import StoreError
    try:
        if a.cmd == "ingest":
            return cmd_ingest(a)
        if a.cmd == "query":
            return cmd_query(a)
        if a.cmd in ("job-stats", "file-stats"):
            return _stats(a, a.cmd.split("-")[0])
        return cmd_report(a)
    except (StoreError, ConfigError, FileNotFoundError, KeyError, ValueError) as e:
        print(f"iolens fleet {a.cmd}: {e}", file=sys.stderr)
        return 1
    except Exception as e:  # duckdb errors: bad SQL is a user error, not a crash
        if type(e).__module__.startswith("duckdb") or type(e).__module__.startswith("_duckdb"):
            print(f"iolens fleet {a.cmd}: {e}", file=sys.stderr)
            return 1
        raise


if __name__ == "__main__":
    sys.exit(main())

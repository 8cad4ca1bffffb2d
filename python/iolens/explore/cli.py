"""`iolens explore LOG [-o page.html] [--port N] [--listen ADDR] [--no-browser]
[--cache DIR]` and `iolens explore --clear-cache [--cache DIR]`."""
from __future__ import annotations

import argparse
import sys
import time
import webbrowser
from pathlib import Path

from .._output import refuse_inputs, write_text
from .._verb import VerbError, make_parser, port, run_verb

from .page import EMBED_LIMIT, embedded_segments, render_page
from .server import LOOPBACK


def parse_args(argv):
    p = make_parser(
        "explore",
        description="Explore a log's DXT traces (or, without DXT, its heat map and "
                    "counters) in the browser: served on 127.0.0.1, or written to one "
                    "self-contained HTML file with -o.  The served page needs the "
                    "random token in the printed URL.")
    p.add_argument("log", nargs="?", help="log file (.darshan)")
    p.add_argument("-o", "--output", help="write a self-contained HTML page instead of "
                   f"serving (logs with at most {EMBED_LIMIT} DXT segments)")
    p.add_argument("--port", type=port, default=0, help="port on 127.0.0.1 (default: any free)")
    p.add_argument("--listen", metavar="ADDR", default=LOOPBACK,
                   help="address to serve on, for deliberate remote use (default "
                   f"{LOOPBACK}); the URL's token is still required")
    p.add_argument("--no-browser", action="store_true", help="do not open a browser")
    p.add_argument("--cache", type=Path, help="index directory (default: $IOLENS_CACHE_DIR "
                   "or ~/.cache/iolens/explore)")
    p.add_argument("--clear-cache", action="store_true",
                   help="remove every index from the cache directory and exit")
    p.add_argument("--serve-seconds", type=float, default=None, help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.clear_cache:
        if args.log or args.output:
            p.error("--clear-cache takes no log and no -o")
        return args
    if not args.log:
        p.error("the following arguments are required: log")
    if args.output and (args.port or args.listen != LOOPBACK):
        p.error("-o writes a page instead of serving: it takes no --port or --listen")
    return args


def clear_cache(args) -> int:
    from . import cache
    where = args.cache or cache.root()
    n = cache.clear(where)
    print(f"iolens explore: {n} index(es) removed from {where}")
    return 0


def run(args) -> int:
    if args.clear_cache:
        return clear_cache(args)
    import iolens
    from .index import index_for
    from .views import summary
    refuse_inputs([args.output], [args.log])
    with iolens.open(args.log) as log:
        idx = index_for(log, args.cache)
        data = summary(log, idx)
    if args.output:
        if idx.nseg > EMBED_LIMIT:
            raise VerbError(args.log, f"{idx.nseg} DXT segments, more than the {EMBED_LIMIT} "
                            "a self-contained page can hold; run `iolens explore` without "
                            "-o to serve it instead")
        write_text(args.output, render_page(data, embedded_segments(idx)), [args.log])
        print(f"explorer page written to {Path(args.output).resolve()}")
        return 0
    from .server import Explorer, page_url, serve
    app = Explorer(idx, data)
    try:
        server = serve(app, args.port, args.listen)
    except OSError as err:          # the port is taken: not the log's fault
        where = f"port {args.port}" if args.listen == LOOPBACK else \
            f"--listen {args.listen} port {args.port}"
        raise VerbError(None, f"{where}: {err.strerror or err}") from None
    url = page_url(app, server, args.listen)
    print(f"iolens explore: serving {args.log} at {url} (Ctrl-C stops)", flush=True)
    if not args.no_browser:
        webbrowser.open(url)
    try:
        if args.serve_seconds is not None:
            time.sleep(args.serve_seconds)
        else:
            while True:
                time.sleep(3600)
    except KeyboardInterrupt:
        pass
    server.shutdown()
    return 0


def main(argv=None) -> int:
    return run_verb("iolens explore", parse_args, run, argv, subject=lambda a: a.log)


if __name__ == "__main__":
    sys.exit(main())

"""`iolens explore` served: a small HTTP server on 127.0.0.1 only.

Routes: ``/`` (the page), ``/api/summary`` (views data, computed once),
``/api/spans?t0=&t1=&r0=&r1=&op=&file=&px=&max=`` (one timeline query).

The standard library's ThreadingHTTPServer is enough here: one user, a handful
of small JSON replies per interaction, and no dependency to keep up to date."""
from __future__ import annotations

import json
import math
import threading
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlparse

from .page import render_page
from .query import View, query

OPS = {"read": 0, "write": 1}


class BadRequest(ValueError):
    pass


def view_from_params(params: dict) -> View:
    """A View from URL parameters (the same names the page keeps in its URL)."""
    def one(name, conv, default):
        vals = params.get(name)
        if not vals or vals[0] == "":
            return default
        try:
            value = conv(vals[0])
        except ValueError as err:
            raise BadRequest(f"bad value for {name}: {vals[0]!r}") from err
        if isinstance(value, float) and not math.isfinite(value):
            raise BadRequest(f"{name} must be finite")
        return value

    v = View(t0=one("t0", float, 0.0), t1=one("t1", float, math.inf),
             rank0=one("r0", int, View.rank0), rank1=one("r1", int, View.rank1),
             px=one("px", int, 1000), max_spans=one("max", int, View.max_spans))
    op = one("op", str, "all")
    if op != "all":
        if op not in OPS:
            raise BadRequest("op must be all, read or write")
        v.ops = {OPS[op]}
    f = one("file", int, -1)
    if f >= 0:
        v.files = {f}
    return v


class Explorer:
    """The state one server shares between requests (read-only after start)."""

    def __init__(self, idx, summary: dict):
        self.idx, self.summary = idx, summary
        self.page = render_page(summary, None).encode()
        self.summary_json = json.dumps(summary).encode()


def make_handler(app: Explorer):
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):      # quiet unless something fails
            pass

        def _send(self, status, body: bytes, ctype: str):
            self.send_response(status)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self):
            url = urlparse(self.path)
            try:
                if url.path in ("/", "/index.html"):
                    return self._send(HTTPStatus.OK, app.page, "text/html; charset=utf-8")
                if url.path == "/api/summary":
                    return self._send(HTTPStatus.OK, app.summary_json, "application/json")
                if url.path == "/api/spans":
                    reply = query(app.idx, view_from_params(parse_qs(url.query)))
                    return self._send(HTTPStatus.OK, json.dumps(reply).encode(),
                                      "application/json")
                self._send(HTTPStatus.NOT_FOUND, b'{"error": "not found"}', "application/json")
            except BadRequest as err:
                self._send(HTTPStatus.BAD_REQUEST, json.dumps({"error": str(err)}).encode(),
                           "application/json")
    return Handler


def serve(app: Explorer, port: int = 0) -> ThreadingHTTPServer:
    """Start serving on 127.0.0.1 in a daemon thread; returns the server
    (``server.server_address`` holds the port; ``shutdown()`` stops it)."""
    server = ThreadingHTTPServer(("127.0.0.1", port), make_handler(app))
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server

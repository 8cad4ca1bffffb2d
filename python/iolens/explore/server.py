"""`iolens explore` served: a small HTTP server, on 127.0.0.1 unless told.

Routes: ``/`` (the page), ``/api/summary`` (views data, computed once),
``/api/spans?t0=&t1=&r0=&r1=&op=&file=&region=&px=&rows=&max=`` (one timeline
query; ``region`` is a code of the summary's ``regions.names``, -2 for the
segments outside every region, -1 or absent for all).

Private by default (the trace names the job's files): every request must carry
the run's random token (``?token=``, compared in constant time), its Host header
must name this server (no DNS rebinding) and an Origin header, when present,
must be this server's.  Anything else gets 403.  ``listen`` other than the
loopback is for deliberate remote use; the token is still required.

The standard library's ThreadingHTTPServer is enough here: one user, a handful
of small JSON replies per interaction, and no dependency to keep up to date."""
from __future__ import annotations

import hmac
import json
import math
import secrets
import socket
import threading
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlparse

from .page import render_page
from .query import MAX_SPANS_CAP, View, query
from .regions import NO_REGION

OPS = {"read": 0, "write": 1}
ALL_REGIONS, OUTSIDE_REGIONS = -1, -2     # the page's region selector besides the codes


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
             px=one("px", int, 1000), rows=one("rows", int, View.rows),
             max_spans=min(one("max", int, View.max_spans), MAX_SPANS_CAP))
    op = one("op", str, "all")
    if op != "all":
        if op not in OPS:
            raise BadRequest("op must be all, read or write")
        v.ops = {OPS[op]}
    f = one("file", int, -1)
    if f >= 0:
        v.files = {f}
    region = one("region", int, ALL_REGIONS)
    if region != ALL_REGIONS:     # a region's code, or OUTSIDE_REGIONS
        v.regions = {NO_REGION if region == OUTSIDE_REGIONS else region}
    return v


def to_json(obj) -> bytes:
    """Strict JSON (a browser's JSON.parse rejects NaN and Infinity): a float
    that is not finite becomes null."""
    try:
        return json.dumps(obj, allow_nan=False).encode()
    except ValueError:
        return json.dumps(_finite(obj), allow_nan=False).encode()


def _finite(obj):
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if isinstance(obj, dict):
        return {k: _finite(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_finite(v) for v in obj]
    return obj


class Explorer:
    """The state one server shares between requests (read-only after start)."""

    def __init__(self, idx, summary: dict, token: str = None):
        self.idx, self.summary = idx, summary
        self.token = token or secrets.token_urlsafe(24)
        self.page = render_page(summary, None).encode()
        self.summary_json = to_json(summary)
        self.hosts = set()          # Host values naming this server; set by serve()

    def allowed(self, headers, params: dict) -> bool:
        """Token, Host and Origin of one request (see the module's docstring)."""
        given = (params.get("token") or [""])[0]
        if not hmac.compare_digest(given.encode(), self.token.encode()):
            return False
        if (headers.get("Host") or "").lower() not in self.hosts:
            return False
        origin = headers.get("Origin")
        return origin is None or origin.lower() in {"http://" + h for h in self.hosts}


def make_handler(app: Explorer):
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):      # quiet unless something fails
            pass

        def _send(self, status, body: bytes, ctype: str):
            self.send_response(status)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", "no-store")
            self.send_header("Referrer-Policy", "no-referrer")
            self.send_header("X-Content-Type-Options", "nosniff")
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self):
            url = urlparse(self.path)
            if not app.allowed(self.headers, parse_qs(url.query)):
                return self._send(HTTPStatus.FORBIDDEN, b'{"error": "forbidden"}',
                                  "application/json")
            try:
                if url.path in ("/", "/index.html"):
                    return self._send(HTTPStatus.OK, app.page, "text/html; charset=utf-8")
                if url.path == "/api/summary":
                    return self._send(HTTPStatus.OK, app.summary_json, "application/json")
                if url.path == "/api/spans":
                    reply = query(app.idx, view_from_params(parse_qs(url.query)))
                    return self._send(HTTPStatus.OK, to_json(reply), "application/json")
                self._send(HTTPStatus.NOT_FOUND, b'{"error": "not found"}', "application/json")
            except BadRequest as err:
                self._send(HTTPStatus.BAD_REQUEST, json.dumps({"error": str(err)}).encode(),
                           "application/json")
    return Handler


LOOPBACK = "127.0.0.1"


class _Server6(ThreadingHTTPServer):
    address_family = socket.AF_INET6


def host_names(listen: str, port: int) -> set:
    """Host header values that name this server: the loopback names, and with
    another listen address that address and this machine's names."""
    names = {"127.0.0.1", "localhost", "[::1]"}
    if listen != LOOPBACK:
        names |= {f"[{listen}]" if ":" in listen else listen,
                  socket.gethostname(), socket.getfqdn()}
        try:
            names |= {a[4][0] if a[0] == socket.AF_INET else f"[{a[4][0]}]"
                      for a in socket.getaddrinfo(socket.gethostname(), None)}
        except OSError:
            pass
    return {f"{n.lower()}:{port}" for n in names}


def serve(app: Explorer, port: int = 0, listen: str = LOOPBACK) -> ThreadingHTTPServer:
    """Start serving on ``listen`` (default 127.0.0.1) in a daemon thread; returns
    the server (``server.server_address`` holds the port; ``shutdown()`` stops it)."""
    cls = _Server6 if ":" in listen else ThreadingHTTPServer
    server = cls((listen, port), make_handler(app))
    server.daemon_threads = True
    app.hosts = host_names(listen, server.server_address[1])
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def page_url(app: Explorer, server: ThreadingHTTPServer, listen: str = LOOPBACK) -> str:
    """The URL to open: with the token, on a name the Host check accepts."""
    host = LOOPBACK if listen == LOOPBACK else socket.getfqdn()
    if listen not in (LOOPBACK, "0.0.0.0", "::"):
        host = f"[{listen}]" if ":" in listen else listen
    return f"http://{host}:{server.server_address[1]}/?token={app.token}"

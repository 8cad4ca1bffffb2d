"""`iolens fleet report`: one self-contained HTML page (inline SVG figures,
inline CSS, no scripts, nothing loaded from the network) of the named queries
and the per-application history.

History: for each application with at least MIN_RUNS runs (the most frequent
first), the I/O time of every run over time, with the spread (10th-90th
percentile) of the runs before the latest; the latest run is marked in red
and flagged in the table when it falls outside that spread.
"""
from __future__ import annotations

import html
import io

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from . import named  # noqa: E402
from .query import connect  # noqa: E402

plt.rcParams["svg.fonttype"] = "none"
MIN_RUNS = 4
MAX_APPS = 12
CSS = ("body{font-family:sans-serif;max-width:1100px;margin:auto;padding:1em}"
       "table{border-collapse:collapse;font-size:12px;margin:.5em 0}"
       "td,th{border:1px solid #ccc;padding:2px 6px;text-align:right}"
       "th{background:#eee}.out{color:#b00;font-weight:bold}"
       "figure svg{max-width:100%;height:auto}")


def _svg(fig) -> str:
    buf = io.StringIO()
    fig.tight_layout()
    fig.savefig(buf, format="svg")
    plt.close(fig)
    text = buf.getvalue()
    return "<figure>" + text[text.index("<svg"):] + "</figure>"


def _table(df: pd.DataFrame, max_rows: int = 25) -> str:
    return df.head(max_rows).to_html(index=False, classes="q", border=0,
                                     float_format=lambda v: f"{v:.4g}")


def _cdf_figure(cdf: pd.DataFrame) -> str:
    metrics = ["bytes", "files", "perf"]
    fig, axes = plt.subplots(1, 3, figsize=(11, 3.2))
    for ax, m in zip(axes, metrics):
        for itf, g in cdf[cdf["metric"] == m].groupby("interface"):
            # The query gives the CDF at grid points: a step rises at each point.
            # The overflow bin's +inf key has no place on the axis.
            g = g[np.isfinite(g["value"])]
            ax.plot(np.maximum(g["value"], 1e-3), g["fraction"], label=itf, drawstyle="steps-pre")
        ax.set_xscale("log")
        ax.set_xlabel({"bytes": "bytes per job", "files": "files per job",
                       "perf": "bytes/s by slowest rank"}[m])
        ax.set_ylabel("fraction of jobs")
    axes[0].legend(fontsize=7)
    return _svg(fig)


def _coverage_figure(cov: pd.DataFrame) -> str:
    fig, ax = plt.subplots(figsize=(11, 2.6))
    ax.bar(pd.to_datetime(cov["date"]), cov["logs"], width=1.0)
    ax.set_ylabel("logs per day")
    return _svg(fig)


def history(con) -> pd.DataFrame:
    """Per application: runs, latest I/O time, spread of earlier runs, outside?"""
    runs = con.execute("SELECT app, start_time, io_time, log_key FROM jobs "
                       "ORDER BY app, start_time, log_key").df()
    rows = []
    for app, g in runs.groupby("app", sort=False):
        if len(g) < MIN_RUNS:
            continue
        earlier, latest = g["io_time"].iloc[:-1], g["io_time"].iloc[-1]
        lo, hi = earlier.quantile(0.1), earlier.quantile(0.9)
        rows.append({"app": app, "runs": len(g), "latest_io_time": latest,
                     "p10_earlier": lo, "p90_earlier": hi,
                     "outside": bool(latest < lo or latest > hi)})
    out = pd.DataFrame(rows, columns=["app", "runs", "latest_io_time", "p10_earlier",
                                      "p90_earlier", "outside"])
    return out.sort_values(["runs", "app"], ascending=[False, True]).head(MAX_APPS), runs


def _history_figure(app: str, g: pd.DataFrame, row) -> str:
    fig, ax = plt.subplots(figsize=(5.2, 2.4))
    t = pd.to_datetime(g["start_time"], unit="s")
    ax.plot(t, g["io_time"], "o-", ms=3, color="#4C72B0")
    ax.fill_between(t.iloc[:-1], row.p10_earlier, row.p90_earlier, color="#4C72B0", alpha=0.15,
                    label="p10-p90 of earlier runs")
    ax.plot(t.iloc[-1:], g["io_time"].iloc[-1:], "o", ms=7,
            color="#b00" if row.outside else "#55A868", label="latest run")
    ax.set_title(app, fontsize=9)
    ax.set_ylabel("I/O time (s)")
    ax.legend(fontsize=6)
    fig.autofmt_xdate()
    return _svg(fig)


def render(store: str) -> str:
    parts = [f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>iolens fleet report"
             f"</title><style>{CSS}</style></head><body><h1>Fleet report</h1>"
             f"<p>Store: {html.escape(store)}</p>"]
    with connect(store) as con:
        for name, (make, text) in named.NAMED.items():
            df = con.execute(make(20)).df()
            parts.append(f"<section id='{name}'><h2>{html.escape(text)}</h2>")
            if name == "cdf" and len(df):
                parts.append(_cdf_figure(df))
            elif name == "coverage" and len(df):
                parts.append(_coverage_figure(df))
                parts.append(_table(df.tail(31)))
            else:
                parts.append(_table(df))
            parts.append("</section>")
        hist, runs = history(con)
        parts.append("<section id='history'><h2>Per-application history</h2>"
                     f"<p>Applications with at least {MIN_RUNS} runs; the latest run is red "
                     "when its I/O time is outside the 10th-90th percentile of the earlier runs.</p>")
        parts.append(_table(hist).replace("<td>True</td>", "<td class='out'>True</td>"))
        for row in hist.itertuples():
            parts.append(_history_figure(row.app, runs[runs["app"] == row.app], row))
        parts.append("</section></body></html>")
    return "".join(parts)


def write(store: str, output: str) -> str:
    from .._output import write_text
    write_text(output, render(store))        # never a truncated page (docs/cli.md)
    return output

"""PDF output.  First choice: print the HTML page with headless Chromium, so
the PDF has exactly the content and layout of the page.  Without a Chromium,
fall back to matplotlib's PdfPages: the same figures and tables, one per page,
in a plainer layout."""
from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import matplotlib.pyplot as plt
from matplotlib.backends.backend_pdf import PdfPages

from .registry import FIGURE, ITEMS, applies
from .tables import Cell

BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
MAX_TABLE_ROWS = 40


def find_browser() -> str | None:
    """$IOLENS_CHROMIUM (empty = do not use a browser), else the first
    Chromium-family browser on PATH."""
    env = os.environ.get("IOLENS_CHROMIUM")
    if env is not None:
        return env or None
    return next((p for p in map(shutil.which, BROWSERS) if p), None)


def browser_command(browser: str, profile: str) -> list:
    # Flags for a sandbox-less, offline, quiet one-shot run.
    return [browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
            "--no-first-run", "--disable-background-networking", "--disable-component-update",
            "--disable-sync", "--disable-dev-shm-usage", f"--user-data-dir={profile}"]


def print_with_browser(browser: str, html_path: Path, pdf_path: Path) -> bool:
    with tempfile.TemporaryDirectory(prefix="iolens-chromium-") as profile:
        cmd = browser_command(browser, profile) + [
            "--no-pdf-header-footer", f"--print-to-pdf={pdf_path}", html_path.resolve().as_uri()]
        try:
            subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                           timeout=300, check=False)
        except (OSError, subprocess.TimeoutExpired):
            return False
    return pdf_path.exists() and pdf_path.stat().st_size > 0


def write_pdf(data, html_text: str, pdf_path: Path) -> str:
    """Write the PDF; returns which engine made it ('chromium' or 'matplotlib')."""
    pdf_path = Path(pdf_path)
    if pdf_path.exists():
        pdf_path.unlink()
    browser = find_browser()
    if browser:
        with tempfile.TemporaryDirectory(prefix="iolens-report-") as tmp:
            page = Path(tmp) / "report.html"
            page.write_text(html_text, encoding="utf-8")
            if print_with_browser(browser, page, pdf_path):
                return "chromium"
    write_pdf_matplotlib(data, pdf_path)
    return "matplotlib"


def write_pdf_matplotlib(data, pdf_path: Path) -> None:
    with PdfPages(pdf_path) as pdf:
        for item in ITEMS:
            if not applies(data, item):
                continue
            try:
                built = item.build(data)
            except Exception:  # the HTML page already reports the failure
                built = None
            fig = _page(item, built)
            pdf.savefig(fig)
            plt.close(fig)


def _page(item, built):
    if isinstance(built, tuple):   # (why the figure differs, the figure)
        sentence, built = built
        built.text(0.01, 0.005, sentence, fontsize="x-small", wrap=True)
    if item.kind == FIGURE and hasattr(built, "savefig"):
        built.suptitle(f"{item.section}: {item.title}", fontsize="small", y=1.0)
        return built
    fig, ax = plt.subplots(figsize=(8.27, 11.69))
    ax.axis("off")
    ax.set_title(f"{item.section}: {item.title}\n{item.caption}", fontsize="small", wrap=True)
    if built is None or isinstance(built, str):
        ax.text(0.5, 0.5, built or "No data in this log.", ha="center", wrap=True)
        return fig
    rows = [[c.text if isinstance(c, Cell) else str(c) for c in row]
            for row in built.rows[:MAX_TABLE_ROWS]]
    if rows:
        table = ax.table(cellText=[[t[:60] for t in r] for r in rows],
                         colLabels=built.columns, loc="upper center")
        table.auto_set_font_size(False)
        table.set_fontsize(6)
        table.auto_set_column_width(list(range(len(built.columns))))
    return fig

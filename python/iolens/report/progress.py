"""Progress of a report on a terminal: a one-line bar with the step in hand
and the time so far, redrawn in place on stderr.

A large log takes many seconds to report; a user at a terminal should see
that work is going on and where.  When stderr is not a terminal (a pipe, a
file, a batch job's output), nothing is written: logs and scripts stay clean."""
from __future__ import annotations

import sys
import time

BAR_WIDTH = 24
LINE_WIDTH = 100


def _is_terminal(stream) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):   # closed or not a real stream
        return False


class Progress:
    """`total` steps; `step(label)` when one starts, `done(message)` at the end.
    Quiet (writes nothing) unless `stream` (default stderr) is a terminal."""

    def __init__(self, total: int = 0, stream=None, enabled: bool | None = None):
        self.stream = sys.stderr if stream is None else stream
        self.enabled = _is_terminal(self.stream) if enabled is None else enabled
        self.total = max(int(total), 0)
        self.count = 0
        self.start = time.monotonic()

    def add(self, steps: int) -> None:
        """Announce `steps` more steps (found once the work is under way)."""
        self.total += max(int(steps), 0)

    def note(self, label: str) -> None:
        """Show `label` as what is being done now, without counting a step."""
        self._draw(label)

    def step(self, label: str) -> None:
        self.count += 1
        self._draw(label)

    def done(self, message: str) -> None:
        if self.enabled:
            self._write(f"\r\x1b[K{message} ({self.elapsed():.1f} s)\n")

    def clear(self) -> None:
        """Erase the bar (before an error message, which then starts its own line)."""
        if self.enabled:
            self._write("\r\x1b[K")

    def elapsed(self) -> float:
        return time.monotonic() - self.start

    def _draw(self, label: str) -> None:
        if not self.enabled:
            return
        total = max(self.total, self.count, 1)
        filled = BAR_WIDTH * min(self.count, total) // total
        bar = "#" * filled + "-" * (BAR_WIDTH - filled)
        line = f"[{bar}] {self.count}/{total} {self.elapsed():5.1f} s  {label}"
        self._write("\r\x1b[K" + line[:LINE_WIDTH])

    def _write(self, text: str) -> None:
        try:
            self.stream.write(text)
            self.stream.flush()
        except (OSError, ValueError):   # terminal gone: progress is not worth failing for
            self.enabled = False


"""The rule about the log itself: damaged data the view set aside."""
from __future__ import annotations

from .model import Hit


def damaged_log(ctx):
    """One finding naming what the view set aside (the other rules never see it)."""
    damage = ctx.view.damage
    ctx.measure("records and trace segments set aside", damage.total)
    if not damage.any:
        return None
    lines = [f"{damage.total} records or trace segments hold values a healthy run cannot "
             "produce; they were set aside and no other finding uses them"]
    lines += [f"  {line}" for line in damage.lines()]
    numbers = {f"set_aside.{module}": float(n) for module, n in damage.set_aside.items()}
    numbers["set_aside"] = float(damage.total)
    return Hit("Damaged data in the log", lines, 0.0,
               "no time estimated: the damaged values are not measurements", numbers)

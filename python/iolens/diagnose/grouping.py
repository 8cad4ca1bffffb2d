"""Root causes, not symptoms: findings that share evidence become one group with
one time, and no process is said to lose more than its I/O time.

A finding belongs to the group of a finding whose rule ``explains`` its rule
and that shares evidence with it (a file or a rank in common, or one of the two
names neither): rank 0 doing all the I/O explains the imbalance it causes; tiny
files explain their metadata time.  A root explained in turn by another finding
passes its members up, so every group has one root.

Time: a group's seconds on one process are the largest of its members' there
(they describe the same seconds, so they are not added).  Summed over groups,
a process's seconds are capped at its I/O time (the view's io_time: read, write
and metadata seconds, its own records plus the shared ones); when the sum of
the causes passes it, every cause's share on that process is scaled down alike.
Residual rules (an umbrella over a whole layer's time: blocking-mpiio, no-mpiio)
get only what the causes leave.  A group's time is then the most any one process
loses to it."""
from __future__ import annotations

from typing import Dict, List

from .._meta import layered_seconds, modules
from .model import Finding, Group

OTHERS = "others"       # every rank without records of its own (they hold only shared time)


def _shares_evidence(a: Finding, b: Finding) -> bool:
    named_a = set(a.hit.files) | {f"rank {r}" for r in a.hit.ranks}
    named_b = set(b.hit.files) | {f"rank {r}" for r in b.hit.ranks}
    return not named_a or not named_b or bool(named_a & named_b)


def group_findings(findings: List[Finding]) -> List[Group]:
    parent: Dict[int, int] = {}
    for i, f in enumerate(findings):
        roots = [j for j, r in enumerate(findings)
                 if j != i and f.rule.id in r.rule.explains and _shares_evidence(r, f)]
        if roots:
            parent[i] = max(roots, key=lambda j: findings[j].hit.time_lost)

    def top(i: int) -> int:
        seen = {i}
        while i in parent and parent[i] not in seen:    # a cycle stops at its first repeat
            i = parent[i]
            seen.add(i)
        return i

    members: Dict[int, List[Finding]] = {}
    for i in range(len(findings)):
        members.setdefault(top(i), [])
        if top(i) != i:
            members[top(i)].append(findings[i])
    groups = []
    for i, ms in members.items():
        root = findings[i]
        for f in [root] + ms:
            f.group = root.rule.id
        ms.sort(key=lambda f: -f.hit.time_lost)
        groups.append(Group(root, ms, max(f.hit.time_lost for f in [root] + ms)))
    return groups


def process_io_seconds(ctx) -> Dict[object, float]:
    """I/O seconds of every process with records of its own, and of OTHERS.
    The layers combine as iolens._meta.layered_seconds says (file-system layers
    add up; a layer above them contains their time)."""
    times = {}
    for m in modules().values():
        if m.role == "io" and m.name in ctx.modules:
            t = ctx.io_time(m.name)
            if t is not None:
                times[m.name] = t
    ranks = set()
    for t in times.values():
        ranks.update(int(r) for r in t.per_process.ranks)

    def of(rank) -> float:
        return layered_seconds({name: t.shared if rank == OTHERS else t.of(rank)
                                for name, t in times.items()})

    out = {r: of(r) for r in sorted(ranks)}
    if len(ranks) < ctx.nprocs:
        out[OTHERS] = of(OTHERS)
    return out


def _seconds_on(f: Finding, rank) -> float:
    if f.hit.rank_seconds is None:
        return float(f.hit.time_lost)
    return 0.0 if rank == OTHERS else float(f.hit.rank_seconds.get(rank, 0.0))


def cap_per_process(groups: List[Group], ctx) -> dict:
    """Cap each process's summed seconds at its I/O time; set each group's time
    to the most one process loses to it.  Returns {process: (lost, io seconds)}."""
    io = process_io_seconds(ctx)
    for g in groups:
        for f in [g.root] + g.members:
            if f.hit.rank_seconds:
                for r in f.hit.rank_seconds:
                    io.setdefault(int(r), _io_of_unnamed(io))
    share = {p: [max(_seconds_on(f, p) for f in [g.root] + g.members) for g in groups]
             for p in io}
    residual = [g.root.rule.residual for g in groups]
    lost = {}
    for p, secs in share.items():
        causes = sum(x for x, r in zip(secs, residual) if not r)
        scale = min(1.0, io[p] / causes) if causes > 0 else 1.0
        left = max(io[p] - causes * scale, 0.0)
        out = []
        for x, r in zip(secs, residual):
            if r:                       # the residual findings share what is left
                x = min(x, left)
                left -= x
            else:
                x *= scale
            out.append(x)
        share[p] = out
        lost[p] = (sum(out), io[p])
    for k, g in enumerate(groups):
        g.time_lost = max([share[p][k] for p in share] or [0.0])
    return lost


def _io_of_unnamed(io: dict) -> float:
    return io.get(OTHERS, 0.0)

#!/usr/bin/env python3
"""Fail when a Ninja build tree compiles one source twice with the same meaning.

Usage: compiles_once.py BUILD_DIR [NINJA]     (ctest build_compiles_once)
       compiles_once.py --count BUILD_DIR [NINJA] [TARGET...]

Two compile commands of one source are duplicates when they would produce the
same object: same compiler, same flags (include paths and output names aside),
the same headers read (Ninja's deps log: a header from another MPI's directory
makes a different object), and the same definitions among those the text reads,
a definition counting only when its name occurs in the source or in a header it
read (IOLENS_MPI=1, which no file read, made a second copy of every core object
before docs/install.md's "One build").  So the --wrap archive's IOL_STATIC_WRAP
copies are no duplicates only for files that reach wrappers/real.h, the one
place that reads it: compiling any other file with it is reported.

--count prints the number of compile steps and of distinct sources (all, or
those the targets need), for docs/install.md.
"""
import json
import os
import re
import shlex
import subprocess
import sys
from collections import defaultdict

# Options whose next argument is a file name or an include path: not part of
# what a compile means (the headers actually read stand for the include paths).
SKIP_WITH_ARG = {"-o", "-MF", "-MT", "-MQ", "-I", "-isystem", "-iquote", "-idirafter"}
SKIP_PREFIX = ("-I", "-isystem", "-iquote", "-MF", "-MT", "-MQ")
SKIP_ALONE = {"-c", "-MD", "-MMD"}


def ninja(build, ninja_cmd, *args):
    r = subprocess.run([ninja_cmd, "-C", build, "-t", *args], capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"compiles_once: ninja -t {' '.join(args)} failed: {r.stderr}")
    return r.stdout


def compile_commands(build, ninja_cmd):
    """(directory, argv, source, object) of every C compile step of the tree."""
    out = []
    for e in json.loads(ninja(build, ninja_cmd, "compdb")):
        argv = shlex.split(e["command"])
        if "-c" not in argv:
            continue
        src = os.path.normpath(os.path.join(e["directory"], e["file"]))
        out.append((e["directory"], argv, src, e["output"]))
    return out


def deps_log(build, ninja_cmd):
    """object path (as in the compdb) -> the files its compile read."""
    deps, cur = {}, None
    for line in ninja(build, ninja_cmd, "deps").splitlines():
        if line and not line[0].isspace():
            cur = line.split(":", 1)[0]
            deps[cur] = []
        elif line.strip() and cur is not None:
            deps[cur].append(os.path.normpath(os.path.join(build, line.strip())))
    return deps


_texts = {}


def reads(name, files):
    """True when the identifier occurs in one of the files."""
    pat = re.compile(r"\b%s\b" % re.escape(name))
    for f in files:
        if f not in _texts:
            try:
                with open(f, errors="replace") as fh:
                    _texts[f] = fh.read()
            except OSError:
                _texts[f] = None
        text = _texts[f]
        if text is None or (name in text and pat.search(text)):
            return True      # unreadable: count the definition (no false duplicate)
    return False


def meaning(argv, src, read):
    """What makes this compile's object: compiler, flags, read definitions, headers."""
    flags, defs = [], []
    skip = False
    for a in argv[1:]:
        if skip:
            skip = False
        elif a in SKIP_WITH_ARG:
            skip = True
        elif a in SKIP_ALONE or a.startswith(SKIP_PREFIX) or os.path.basename(a) == os.path.basename(src):
            pass
        elif a.startswith("-D"):
            defs.append(a[2:])
        elif a.startswith("-U"):
            defs.append(a)
        else:
            flags.append(a)
    if read is not None:
        defs = [d for d in defs if reads(re.split(r"[=(]", d.lstrip("-U"), 1)[0], [src] + read)]
    return (argv[0], tuple(flags), frozenset(defs), frozenset(read or ()))


def duplicates(build, ninja_cmd):
    deps = deps_log(build, ninja_cmd)
    seen = defaultdict(list)
    unbuilt = 0
    for directory, argv, src, obj in compile_commands(build, ninja_cmd):
        read = deps.get(obj)
        if read is None:
            unbuilt += 1
        seen[(src, meaning(argv, src, read))].append(obj)
    dups = {k[0]: objs for k, objs in seen.items() if len(objs) > 1}
    return dups, unbuilt


def count(build, ninja_cmd, targets):
    steps = [l for l in ninja(build, ninja_cmd, "commands", *targets).splitlines() if " -c " in l]
    srcs = {l.rsplit(" -c ", 1)[1].split()[0] for l in steps}
    print(f"{len(steps)} compile steps, {len(srcs)} distinct sources")


def main(argv):
    if argv and argv[0] == "--count":
        build = argv[1]
        ninja_cmd = argv[2] if len(argv) > 2 else "ninja"
        count(build, ninja_cmd, argv[3:])
        return 0
    build = argv[0]
    ninja_cmd = argv[1] if len(argv) > 1 else "ninja"
    dups, unbuilt = duplicates(build, ninja_cmd)
    if unbuilt:
        print(f"compiles_once: {unbuilt} objects not built yet: their definitions all count")
    for src, objs in sorted(dups.items()):
        print(f"{src} is compiled {len(objs)} times with the same meaning:")
        for o in objs:
            print(f"    {o}")
    if dups:
        print(f"compiles_once: {len(dups)} sources compiled more than once (docs/install.md, 'One build')")
        return 1
    print("compiles_once: every source is compiled once per set of definitions it reads")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

#!/usr/bin/env python3
"""Give the build stable copies of the MLIR, LLVM and nanobind packages it
compiles against, so that a second `pip install` in the same clone rebuilds
only what changed.

    python tools/stable_build_deps.py DEST NAME=DIR [NAME=DIR ...]

pip builds in an isolated environment, a new temporary folder each time,
into which it installs the build requirements afresh: the headers then have
another path and a newer time stamp on every run, and ninja recompiles
everything. This script mirrors what the compiler and CMake read (the
`include/` trees, the CMake package files under `lib/cmake/`, `mlir-tblgen`,
and for nanobind the whole package) into DEST/NAME, as hard links where DEST
is on the same file system (else copies, time stamps kept), and only when
the package differs from the one mirrored last (its files' names and sizes
and the distributions' versions, kept in DEST/NAME.stamp). Everything else
(the libraries the build links, the other tools) is a symbolic link into
DIR, refreshed on every run: a relink is cheap. CMake then uses DEST/NAME in
place of DIR.

Prints DEST/NAME for each package; exits 1 (and CMake keeps DIR) where the
mirror cannot be made.
"""
from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

# What is mirrored (real files, stable time stamps) rather than linked, per
# package: paths relative to the package folder. None: the whole package.
MIRRORED = {
    "mlir": ["include", "lib/cmake", "bin/mlir-tblgen"],
    "llvm": ["include", "lib/cmake"],
    "nanobind": None,
}


def _files(root: Path):
    """The files under `root` but Python's bytecode caches (pip writes them
    when it installs into a venv, not into its build environment)."""
    if root.is_file():
        yield root
        return
    for folder, dirs, names in os.walk(root):
        dirs[:] = [d for d in dirs if d != "__pycache__"]
        for name in names:
            yield Path(folder, name)


def fingerprint(source: Path, mirrored: list[str] | None) -> dict:
    """What decides whether the mirror is still good: the mirrored files'
    paths and sizes, and the versions of the distributions beside the
    package (their .dist-info folders)."""
    parts = [source] if mirrored is None else [source / m for m in mirrored]
    files = sorted([str(f.relative_to(source)), f.stat().st_size]  # lists: as JSON reads them
                   for part in parts if part.exists() for f in _files(part))
    dists = sorted(p.name for p in source.parent.glob("*.dist-info")
                   if source.name in p.name.lower())
    return {"files": files, "distributions": dists}


def _mirror_file(src: Path, dst: Path) -> None:
    dst.parent.mkdir(parents=True, exist_ok=True)
    try:
        os.link(src, dst)  # the same inode: no space, the same time stamp
    except OSError:
        shutil.copy2(src, dst)  # another file system: a copy, time stamp kept


def _mirror(source: Path, dest: Path, mirrored: list[str] | None) -> None:
    parts = [""] if mirrored is None else mirrored
    for part in parts:
        for f in _files(source / part):
            _mirror_file(f, dest / f.relative_to(source))


def _link_the_rest(source: Path, dest: Path, mirrored: list[str]) -> None:
    """A symbolic link into `source` for every entry that is not mirrored,
    at the depth where the mirrored paths stop (so lib/ is a folder holding
    cmake/ and a link per library)."""
    keep = {Path(m) for m in mirrored}
    keep_parents = {p for m in keep for p in m.parents if str(p) != "."}

    def walk(rel: Path) -> None:
        for entry in sorted((source / rel).iterdir()):
            r = rel / entry.name
            if r in keep:
                continue
            if r in keep_parents:
                (dest / r).mkdir(parents=True, exist_ok=True)
                walk(r)
                continue
            link = dest / r
            if link.is_symlink() or link.exists():
                if link.is_dir() and not link.is_symlink():
                    shutil.rmtree(link)
                else:
                    link.unlink()
            link.parent.mkdir(parents=True, exist_ok=True)
            link.symlink_to(entry)

    walk(Path("."))


def stabilize(dest_root: Path, name: str, source: Path) -> Path:
    """Mirror package `name` (at `source`) into dest_root/name; returns it."""
    mirrored = MIRRORED.get(name, [])
    dest = dest_root / name
    stamp = dest_root / f"{name}.stamp"
    wanted = fingerprint(source, mirrored)
    current = None
    if stamp.exists() and dest.is_dir():
        try:
            current = json.loads(stamp.read_text())
        except ValueError:
            current = None
    if current != wanted:
        if dest.exists() or dest.is_symlink():
            shutil.rmtree(dest) if dest.is_dir() and not dest.is_symlink() else dest.unlink()
        stamp.unlink(missing_ok=True)
        _mirror(source, dest, mirrored)
        stamp.write_text(json.dumps(wanted))
    if mirrored is not None:
        _link_the_rest(source, dest, mirrored)
    return dest


def main(argv: list[str]) -> int:
    if len(argv) < 2 or any("=" not in a for a in argv[1:]):
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    dest_root = Path(argv[0])
    dest_root.mkdir(parents=True, exist_ok=True)
    try:
        for arg in argv[1:]:
            name, source = arg.split("=", 1)
            print(stabilize(dest_root, name, Path(source).resolve()))
    except OSError as exc:
        print(f"stable_build_deps: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""Where ``cruel serve`` finds its puzzles: one setting, resolved in one place
(:func:`resolve_puzzles`), and said at start-up (docs/service.md, Running a site). Every other
command that reads puzzles looks in the same place (:mod:`.sources`). It imports none of the
package's other modules.

In this order, the first that applies:

1. ``--puzzles DIR`` (``option``);
2. the environment variable ``CRUEL_PUZZLES``;
3. ``puzzles/`` in the working folder, if it is a folder (what ``--puzzles`` defaulted to before,
   and where ``cruel daily --out puzzles/`` writes);
4. the data folder, ``$XDG_DATA_HOME/cruel-tools/puzzles`` (``~/.local/share/...`` when the
   variable is unset), if it is a folder;
5. the public demo set shipped in the package (``cruel_tools/data/puzzles``), read-only.

Nothing here reads a puzzle: :class:`~cruel_tools.puzzles.PuzzleSet` does, and refuses a path
that is not a folder of puzzles.
"""

from __future__ import annotations

import datetime as dt
import os
from collections.abc import Mapping
from dataclasses import dataclass
from importlib.resources import files
from pathlib import Path
from typing import Final, Literal

__all__ = [
    "ENV_PUZZLES",
    "PuzzleSource",
    "PuzzleLocation",
    "packaged_puzzles",
    "data_folder",
    "resolve_puzzles",
    "demo_day",
]

#: The environment variable naming the puzzle set, when ``--puzzles`` is not given.
ENV_PUZZLES: Final = "CRUEL_PUZZLES"

#: Which setting chose the set, as the start-up line says it.
PuzzleSource = Literal["--puzzles", "CRUEL_PUZZLES", "./puzzles", "data folder", "package"]


def packaged_puzzles() -> Path:
    """The public demo set shipped inside the package (the repository's ``puzzles/``, through
    the symbolic link ``cruel_tools/data/puzzles``)."""
    return Path(str(files("cruel_tools") / "data" / "puzzles"))


def data_folder(env: Mapping[str, str] | None = None) -> Path:
    """The user's data folder for puzzles: ``$XDG_DATA_HOME/cruel-tools/puzzles``, or
    ``~/.local/share/cruel-tools/puzzles`` (the XDG Base Directory default)."""
    env = os.environ if env is None else env
    base = env.get("XDG_DATA_HOME") or ""
    root = Path(base) if os.path.isabs(base) else Path.home() / ".local" / "share"
    return root / "cruel-tools" / "puzzles"


@dataclass(frozen=True)
class PuzzleLocation:
    """The puzzle set to serve, which setting chose it, and where new days may be written."""

    path: Path
    source: PuzzleSource
    #: New puzzle files may be written into ``path``: a folder this process may write, and not
    #: the package's own demo set (nor a path that is it, as ``puzzles/`` in an editable
    #: install's clone is).
    writable: bool
    #: Where new days go when ``path`` is not writable: the data folder (made on first write).
    data: Path
    #: ``path`` holds the public demo set: the package's, or a folder whose ``index.json`` is
    #: the package's (its dates are served as a cycle: :func:`demo_day`).
    demo: bool

    @property
    def write_to(self) -> Path:
        """The folder new days are written into (publishing ahead): ``path`` if it is
        writable, else the data folder."""
        return self.path if self.writable else self.data

    def describe(self) -> str:
        """The start-up line: ``puzzles: <path> (from <source>)``."""
        return f"puzzles: {self.path} (from {self.source})"


def resolve_puzzles(
    option: Path | None = None,
    env: Mapping[str, str] | None = None,
    cwd: Path | None = None,
) -> PuzzleLocation:
    """The puzzle set ``cruel serve`` serves: ``option`` (``--puzzles``), else ``CRUEL_PUZZLES``
    in ``env``, else ``puzzles/`` in ``cwd``, else the data folder, else the packaged demo set
    (the module's docstring says why in this order). A path given by ``--puzzles`` or the
    variable is taken as it is, a folder or not: reading it says what is wrong with it."""
    env = os.environ if env is None else env
    cwd = Path.cwd() if cwd is None else cwd
    data, packaged = data_folder(env), packaged_puzzles()
    path: Path
    source: PuzzleSource
    if option is not None:
        path, source = option, "--puzzles"
    elif env.get(ENV_PUZZLES):
        path, source = Path(env[ENV_PUZZLES]), "CRUEL_PUZZLES"
    elif (cwd / "puzzles").is_dir():
        path, source = cwd / "puzzles", "./puzzles"
    elif data.is_dir():
        path, source = data, "data folder"
    else:
        path, source = packaged, "package"
    packaged_itself = source == "package" or _same(path, packaged)
    writable = not packaged_itself and path.is_dir() and os.access(path, os.W_OK | os.X_OK)
    demo = packaged_itself or _same_index(path, packaged)
    return PuzzleLocation(path, source, writable, data, demo)


def _same(path: Path, other: Path) -> bool:
    try:
        return path.resolve() == other.resolve()
    except OSError:
        return False


def _same_index(path: Path, packaged: Path) -> bool:
    """``path`` holds the demo set: its ``index.json`` (every puzzle's id, date, deal and par)
    is the packaged set's, byte for byte (a clone's ``puzzles/`` beside a non-editable install,
    or a copy)."""
    try:
        return (path / "index.json").read_bytes() == (packaged / "index.json").read_bytes()
    except OSError:
        return False


def demo_day(day: dt.date, first: dt.date, last: dt.date) -> dt.date:
    """The date the demo set serves on ``day``: ``day`` itself within ``first``..``last`` (the
    set's dates), else the date at the same place of the set's cycle, so that the demo has open
    puzzles, and a new day's, on any date (the committed set runs from 2027-01-01 to
    2027-03-31; generating one day takes a minute or two, too long for a first start)."""
    if first <= day <= last:
        return day
    span = (last - first).days + 1
    return first + dt.timedelta(days=(day - first).days % span)

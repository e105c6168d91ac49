"""Reading a spec folder: :func:`load`, and :data:`SPEC`, the spec this process plays (the
package's own folder, or the one ``CRUEL_SPEC`` names; see :mod:`cruel_tools.spec`)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Final

import orjson

__all__ = ["ENV", "FOLDER", "FILES", "Spec", "load", "SPEC"]

#: The environment variable naming the folder :data:`SPEC` is read from (unset: :data:`FOLDER`).
ENV: Final = "CRUEL_SPEC"
#: The package's own spec: this folder.
FOLDER: Final = Path(__file__).parent
#: The files of a spec.
FILES: Final = ("presets.json", "log.json", "errors.json")


class Spec:
    """One spec: each file's document as JSON gives it (read, never changed). A plain class, not
    a dataclass: this module is imported at every start of ``cruel``, and costs little so."""

    __slots__ = ("folder", "presets", "log", "errors")

    def __init__(
        self, folder: Path, presets: dict[str, Any], log: dict[str, Any], errors: dict[str, Any]
    ) -> None:
        self.folder, self.presets, self.log, self.errors = folder, presets, log, errors


def load(folder: str | os.PathLike[str] = FOLDER) -> Spec:
    """The spec in ``folder`` (its three :data:`FILES`)."""
    where = Path(folder)
    docs = [orjson.loads((where / name).read_bytes()) for name in FILES]
    return Spec(where, *docs)


#: The spec this process plays: the folder ``CRUEL_SPEC`` names, else :data:`FOLDER`.
SPEC: Final = load(os.environ.get(ENV) or FOLDER)

"""The specification: the facts that Python, the native core (C++) and cruel.js (JavaScript) share,
stated once as data in this folder.

* ``presets.json``: the rules parameters (values, defaults, the core's name for each), the
  combinations that make no game, and the named presets with their sources;
* ``log.json``: the game log's keys, their types and bounds, and the default limits;
* ``errors.json``: the codes of refusals and errors, with their fields and English words.

Python reads these files at import (:data:`SPEC`; :mod:`cruel_tools.game.rules`,
:mod:`cruel_tools.game.log`, :mod:`cruel_tools.errors`); the other languages read what
``python -m cruel_tools.spec generate`` writes from them (``native/spec.hpp``, ``web/spec.js``;
:mod:`cruel_tools.spec.generate`), committed and held to the spec by tests/test_spec.py.

Another folder of the same three files can stand in for this one: :func:`load` reads any folder
(the generator takes ``--spec DIR``), and the environment variable ``CRUEL_SPEC`` names the folder
:data:`SPEC` is read from. It is read once, at import, because the presets are module constants
(``Rules``' ``preset`` field is a ``Literal`` of their names, and the JSON Schemas are made from
it): a process plays one spec, and a test plays another in a process of its own.
"""

from __future__ import annotations

from .data import ENV, FILES, FOLDER, SPEC, Spec, load

__all__ = ["ENV", "FOLDER", "FILES", "Spec", "load", "SPEC"]

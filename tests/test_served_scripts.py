"""The page scripts are served without their comment lines (service/scripts.py): nothing else
of them changes, so each still parses and exports what its source exports."""

from __future__ import annotations

import gzip
import json
import shutil
import subprocess
from pathlib import Path

import pytest

from cruel_tools.service.pages import STATIC
from cruel_tools.service.scripts import without_comment_lines

WEB = Path(__file__).resolve().parent.parent / "cruel_tools" / "web"
NODE = shutil.which("node")
SCRIPTS = sorted(name for name in STATIC if name.endswith(".js"))


def test_whole_comment_lines_go_and_nothing_else() -> None:
    source = "\n".join(
        [
            "// a comment line",
            "/** a block",
            " * on lines",
            " */",
            "/* one line */",
            "const a = 1; // after code: kept",
            "const t = `a template",
            "// text inside it, kept",
            "`;",
            "/* a */ const b = 2;",
            "  // indented comment",
            "const url = 'http://x';",
        ]
    )
    assert without_comment_lines(source).split("\n") == [
        "const a = 1; // after code: kept",
        "const t = `a template",
        "// text inside it, kept",
        "`;",
        "/* a */ const b = 2;",
        "const url = 'http://x';",
    ]


def test_code_after_a_blocks_end_is_refused_not_lost() -> None:
    with pytest.raises(ValueError, match="code after a comment block"):
        without_comment_lines("/* a\n b */ const c = 3;")


def test_the_scripts_lose_a_quarter_of_their_compressed_bytes() -> None:
    # Measured (issue #35): 99,590 bytes gzip-compressed in all, 75,342 without comment lines.
    before = sum(len(gzip.compress((WEB / name).read_bytes(), 9)) for name in SCRIPTS)
    after = sum(len(gzip.compress(STATIC[name][0], 9)) for name in SCRIPTS)
    assert after < before * 0.8, (before, after)


@pytest.mark.skipif(NODE is None, reason="node is not on PATH: the scripts are not loaded")
def test_every_served_script_exports_what_its_source_exports(tmp_path: Path) -> None:
    served = tmp_path / "served"
    served.mkdir()
    for name in SCRIPTS:
        (served / name).write_bytes(STATIC[name][0])
    # Only modules that load without a browser (no document or window at the top level).
    names = [n for n in SCRIPTS if _loads(WEB / n)]
    assert "cruel.js" in names and "spec.js" in names
    script = (
        "const out = {};"
        f"for (const n of {json.dumps(names)}) {{"
        f"  const a = Object.keys(await import({json.dumps(str(WEB))} + '/' + n)).sort();"
        f"  const b = Object.keys(await import({json.dumps(str(served))} + '/' + n)).sort();"
        "  out[n] = [a, b]; }"
        "process.stdout.write(JSON.stringify(out));"
    )
    assert NODE is not None
    done = subprocess.run(
        [NODE, "--input-type=module", "-e", script], capture_output=True, text=True, check=True
    )
    for name, (source_names, served_names) in json.loads(done.stdout).items():
        assert source_names == served_names and source_names, name


def _loads(path: Path) -> bool:
    assert NODE is not None
    done = subprocess.run(
        [NODE, "--input-type=module", "-e", f"await import({json.dumps(str(path))});"],
        capture_output=True,
        text=True,
        check=False,
    )
    return done.returncode == 0

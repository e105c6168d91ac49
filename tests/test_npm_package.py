"""The npm package cruel-engine (packages/cruel-engine): its cheap invariants, without network
or a build. The package itself is built, packed, installed and tested by
packages/cruel-engine/ci.sh (.ci/run, step 4): node --test of its README's examples, tsc --strict
of a TypeScript consumer, and tests/test_cruel_js.py on the installed module."""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "packages" / "cruel-engine"
WEB = ROOT / "cruel_tools" / "web"


def manifest() -> dict[str, Any]:
    data: dict[str, Any] = json.loads((PACKAGE / "package.json").read_text(encoding="utf-8"))
    return data


def modules() -> list[str]:
    """build.mjs's MODULES: the files of cruel_tools/web/ the package holds."""
    source = (PACKAGE / "build.mjs").read_text(encoding="utf-8")
    found = re.findall(r"^export const MODULES = \[(.*?)\];", source, re.S | re.M)
    assert len(found) == 1, "build.mjs keeps its modules in one MODULES array"
    return re.findall(r"'([^']+)'", found[0])


def test_the_version_is_the_python_packages() -> None:
    with (ROOT / "pyproject.toml").open("rb") as f:
        python = tomllib.load(f)["project"]["version"]
    assert manifest()["version"] == python, "packages/cruel-engine/package.json follows pyproject"
    lock = json.loads((PACKAGE / "package-lock.json").read_text(encoding="utf-8"))
    assert lock["version"] == lock["packages"][""]["version"] == python


def test_the_modules_exist_and_bring_what_they_import() -> None:
    names = modules()
    assert names[0] == "cruel.js" and len(set(names)) == len(names)
    for name in names:
        assert (WEB / name).is_file(), f"build.mjs names {name}, not in cruel_tools/web/"
        source = (WEB / name).read_text(encoding="utf-8")
        for imported in re.findall(r"^\s*(?:import|export)\b[^;]*?from '\./([^']+)'", source, re.M):
            assert imported in names, f"{name} imports ./{imported}: add it to build.mjs's MODULES"


def test_the_exports_point_into_dist() -> None:
    m = manifest()
    assert m["name"] == "cruel-engine" and m["type"] == "module"
    assert "dependencies" not in m, "no runtime dependency"
    assert m["files"] == ["dist/"]
    assert m["exports"]["."] == {"types": "./dist/cruel.d.ts", "default": "./dist/cruel.js"}
    assert list(m["exports"]["."]) == ["types", "default"], "types first: TypeScript reads in order"
    assert m["exports"]["./*.js"] == {"types": "./dist/*.d.ts", "default": "./dist/*.js"}
    assert m["main"] == "./dist/cruel.js" and m["types"] == "./dist/cruel.d.ts"
    assert m["scripts"]["build"] == "node build.mjs" and "node --test" in m["scripts"]["test"]


def test_typescript_is_pinned_exactly() -> None:
    pinned = manifest()["devDependencies"]["typescript"]
    assert re.fullmatch(r"\d+\.\d+\.\d+", pinned), "an exact version, not a range"
    lock = json.loads((PACKAGE / "package-lock.json").read_text(encoding="utf-8"))
    assert lock["packages"]["node_modules/typescript"]["version"] == pinned


def test_the_readme_has_examples_that_check_themselves() -> None:
    readme = (PACKAGE / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"^```js\n(.*?)^```$", readme, re.S | re.M)
    examples = [b for b in blocks if "from 'node:assert/strict'" in b]
    assert len(examples) >= 4
    assert all("from 'cruel-engine'" in b for b in blocks)
    for needed in ("Recorder", "readLog", "PRESETS", "automaticMove"):
        assert any(needed in b for b in examples), f"no README example uses {needed}"
    assert (PACKAGE / "test" / "readme.test.mjs").is_file()


def test_ci_runs_the_package_flow() -> None:
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "packages/cruel-engine/ci.sh" in ci
    flow = (PACKAGE / "ci.sh").read_text(encoding="utf-8")
    for step in ("npm ci", "npm pack", "node --test", "tsc --strict", "CRUEL_JS_MODULE="):
        assert step in flow
    assert (PACKAGE / "consumer" / "consumer.ts").is_file()
    ignored = (ROOT / ".gitignore").read_text(encoding="utf-8").splitlines()
    assert "/packages/cruel-engine/dist/" in ignored, "dist/ is built, not committed"

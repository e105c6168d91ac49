"""Builds the optional native core, ``cruel_tools._native`` (C++17, pybind11).

Everything else is declared in pyproject.toml. The extension is optional: where no C++ compiler
works, ``pip install .`` still succeeds (setuptools prints a warning) and every command runs on
the Python engine, slower; ``cruel --version`` says which engine runs.
"""

import os
from glob import glob

from pybind11.setup_helpers import ParallelCompile, Pybind11Extension, build_ext
from setuptools import setup

# The core's units compiled at once, one a core (issue #34: compiled one after another, they
# were most of the first install's time on a 2-core machine). CRUEL_BUILD_JOBS=N sets the
# number; 0 or unset, one a core.
ParallelCompile("CRUEL_BUILD_JOBS").install()

native = Pybind11Extension(
    "cruel_tools._native",
    sorted(glob("cruel_tools/native/*.cpp")),
    depends=sorted(glob("cruel_tools/native/*.hpp")),
    cxx_std=17,
    extra_compile_args=["-O3"],
    # No compiler: install the pure-Python package rather than fail. Under CRUEL_ENGINE=native
    # (CI, and contributors working on the core) a build error fails the install instead.
    optional=os.environ.get("CRUEL_ENGINE") != "native",
)

setup(ext_modules=[native], cmdclass={"build_ext": build_ext})

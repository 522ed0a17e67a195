"""Builds every .pyx under engines/ and agents/ with Cython.

TABLETOP_DEBUG=1 turns bounds checks, wraparound and memoryview initialisation checks back on (the test suite's
build); the default build is the fast one. TABLETOP_ONLY=wizard,core builds only the extensions whose
module name contains one of the given words (handy while working on one engine).
TABLETOP_BUILD_JOBS=N caps the parallel jobs (Cython and the C compiler); the default is every core.
"""
import glob
import os

from Cython.Build import cythonize
from setuptools import Extension, setup

DEBUG = os.environ.get("TABLETOP_DEBUG", "0") not in ("", "0", "false")
ONLY = [w for w in os.environ.get("TABLETOP_ONLY", "").split(",") if w]

directives = {
    "language_level": 3,
    "boundscheck": DEBUG,
    "wraparound": DEBUG,
    "initializedcheck": DEBUG,
    "cdivision": not DEBUG,
}
compile_args = ["-O1", "-g"] if DEBUG else ["-O3"]
JOBS = int(os.environ.get("TABLETOP_BUILD_JOBS", "0")) or os.cpu_count() or 1


def extensions():
    for path in sorted(glob.glob("engines/*.pyx") + glob.glob("agents/*.pyx")):
        module = path[:-4].replace("/", ".")
        if ONLY and not any(word in module for word in ONLY):
            continue
        yield Extension(module, [path], extra_compile_args=compile_args)


setup(
    ext_modules=cythonize(
        list(extensions()),
        compiler_directives=directives,
        nthreads=JOBS,
    ),
    # One C compiler per core (the engines are compiled independently of each other).
    options={"build_ext": {"parallel": JOBS}},
)

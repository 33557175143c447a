"""Wheel build hook: the hot modules compiled with mypyc (the chains' extract, format and parser
code, which is most of a row's time); pure Python where that cannot be done.

Compiling changes no result: the compiled modules are the same source, type-checked, and the
test suite compares an installed compiled package with the source on every shipped sample and
a generated corpus (tests/test_compiled.py).  mypyc needs a C compiler; without one the wheel
is built pure Python, with a warning, unless ``HARNESS_NORMALIZE_REQUIRE_COMPILED=1`` (then the
build fails: CI sets it).  ``HARNESS_NORMALIZE_PURE=1`` builds a pure-Python wheel on purpose.
Editable installs are never compiled (a checkout runs its own source).

The modules are listed in ``[tool.hatch.build.targets.wheel.hooks.custom] compile`` in
pyproject.toml: the rule modules, their shared machinery (``normalize/rules/_speed.py``,
``_fences.py``), the choice and math parsers and the scanners they call.  What the build asks
of the source, all of it here:

* a compiled module defines no pydantic model: mypyc cannot compile one (a field such as
  ``final_tiers: int = Field(default=2, ge=1)`` raises ``TypeError`` when the compiled module is
  imported, and pydantic cannot read a compiled class's methods).  So the params models of the
  compiled rules and parsers live in uncompiled ``_<module>_params.py`` files beside them
  (``normalize/rules/_extract_params.py``, ``_extract_math_params.py``, ``_format_params.py``,
  ``normalize/parsers/_choice_params.py``, ``_math_params.py``), which import nothing from the
  rule modules; everyone imports a model from its params module (the rules package docstring
  says the same for a reader of the rules);
* nothing reads a compiled function's docstring at run time (it has none): ``normalize rules``
  reads a compiled rule's docstring from the source file beside the extension;
* a new rule module in ``normalize/rules/`` that is hot goes into the ``compile`` list too
  (``tests/test_compiled.py`` checks every listed module runs compiled and gives the source's
  results).  A compiled function checks its arguments' declared
types: called directly with a value its annotation excludes (``ParseContext(options=4.0)``,
where ``Pack.run`` would have read the count as ``4``), it raises ``TypeError`` where the
source raises ``ValueError`` or nothing; every call the package makes passes declared types
(``mypy --strict``), and ``tests/test_compiled.py`` compares what ``Pack.run`` gives.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

#: The mypy configuration the compilation type-checks with: the modules' own types are exact
#: (they pass ``mypy --strict`` in CI); imports outside them may be missing from the build
#: environment (pydantic, sympy) and are read as ``Any``, which compiles to the same calls.
_MYPY_CONFIG = """\
[mypy]
ignore_missing_imports = True
follow_imports = silent
warn_unused_ignores = False
"""

_SETUP = """\
import sys
from setuptools import setup
from mypyc.build import mypycify

setup(
    name="harness-normalize-compiled",
    packages=[],
    ext_modules=mypycify(
        ["--config-file", "mypy.ini", *sys.argv.pop(1).split(",")],
        opt_level="3",
        group_name="normalize",
    ),
)
"""


def _flag(name: str) -> bool:
    return os.environ.get(name, "").strip().lower() not in ("", "0", "false", "no")


class CompileHotModules(BuildHookInterface):  # type: ignore[type-arg]
    """Compile ``compile`` (paths under the project root) into the wheel."""

    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        self._workdir: str | None = None
        if self.target_name != "wheel" or version == "editable" or _flag("HARNESS_NORMALIZE_PURE"):
            return
        modules = list(self.config.get("compile", []))
        if not modules:
            return
        required = _flag("HARNESS_NORMALIZE_REQUIRE_COMPILED")
        workdir = tempfile.mkdtemp(prefix="harness-normalize-mypyc-")
        self._workdir = workdir
        root = Path(self.root)
        shutil.copytree(root / "normalize", Path(workdir) / "normalize", ignore=shutil.ignore_patterns("__pycache__", "*.so"))
        Path(workdir, "mypy.ini").write_text(_MYPY_CONFIG, encoding="utf-8")
        Path(workdir, "setup.py").write_text(_SETUP, encoding="utf-8")
        command = [sys.executable, "setup.py", ",".join(modules), "build_ext", "--inplace"]
        done = subprocess.run(command, cwd=workdir, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            message = f"harness-normalize: compiling {len(modules)} modules with mypyc failed:\n{done.stdout[-4000:]}{done.stderr[-4000:]}"
            if required:
                raise RuntimeError(message)
            print(message + "\nharness-normalize: building a pure-Python wheel instead", file=sys.stderr)
            return
        suffix = ".so" if os.name != "nt" else ".pyd"
        built = sorted(p for p in Path(workdir).rglob(f"*{suffix}") if "build" not in p.relative_to(workdir).parts)
        expected = {str(Path(m).with_suffix("")) for m in modules}
        found = {str(p.relative_to(workdir)).split(".", 1)[0] for p in built}
        missing = expected - found
        if missing:
            message = f"harness-normalize: mypyc built no extension for {sorted(missing)}"
            if required:
                raise RuntimeError(message)
            print(message + "; building a pure-Python wheel instead", file=sys.stderr)
            return
        for path in built:
            build_data["force_include"][str(path)] = str(path.relative_to(workdir))
        build_data["pure_python"] = False
        build_data["infer_tag"] = True

    def finalize(self, version: str, build_data: dict[str, Any], artifact_path: str) -> None:
        if getattr(self, "_workdir", None):
            shutil.rmtree(self._workdir, ignore_errors=True)  # type: ignore[arg-type]

"""The wheel holds every module of the source tree, importable from it.

Subpackages are top-level folders mapped into `spyre_mlir` by pyproject.toml;
one forgotten there would silently vanish from the wheel (an editable install
would not notice). Build the wheel, then import every module of the tree from
it alone, in a fresh interpreter outside the checkout. The fuzzer and the
kernel generator (`test/fuzz/spyre_fuzz`) run from a checkout: the wheel holds
neither, and no module of it imports them.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import zipfile

from conftest import REPO

PACKAGE_DIRS = {"spyre_mlir": "spyre_mlir", "dialects": "spyre_mlir.dialects", "passes": "spyre_mlir.passes",
                "tools": "spyre_mlir.tools", "interpreter": "spyre_mlir.interpreter", "analysis": "spyre_mlir.analysis"}


def source_modules() -> list[str]:
    names = []
    for folder, package in PACKAGE_DIRS.items():
        for path in sorted((REPO / folder).rglob("*.py")):
            parts = path.relative_to(REPO / folder).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            names.append(".".join((package, *parts)))
    return names


def test_no_module_of_the_package_imports_the_fuzzer():
    imports = re.compile(r"^\s*(?:from|import)\s+(?:spyre_fuzz|spyre_mlir\.tools\.(?:fuzz|kernel_gen))\b", re.M)
    offenders = [str(path.relative_to(REPO)) for folder in PACKAGE_DIRS for path in sorted((REPO / folder).rglob("*.py"))
                 if imports.search(path.read_text())]
    assert not offenders, f"the installed package must not import test/fuzz: {offenders}"


def test_every_module_is_in_the_wheel_and_imports_from_it(tmp_path):
    # Build from a copy: setuptools reuses a checkout's stale build/ folder.
    source = tmp_path / "source"
    shutil.copytree(REPO, source, ignore=shutil.ignore_patterns(
        ".git", ".venv", "build", "*.egg-info", "__pycache__", "Output", ".*_cache", "out"))
    build = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp_path / "dist"), str(source)],
        capture_output=True, text=True, timeout=600,
    )
    assert build.returncode == 0, build.stderr
    (wheel,) = (tmp_path / "dist").glob("spyre_mlir-*.whl")
    unpacked = tmp_path / "site"
    with zipfile.ZipFile(wheel) as z:
        z.extractall(unpacked)
        fuzzer = [name for name in z.namelist() if "fuzz" in name or "kernel_gen" in name]
        data = [name for name in z.namelist() if name.endswith(".mlir")]
    assert not fuzzer, f"the fuzzer is in the wheel: {fuzzer}"
    assert data == ["spyre_mlir/devices/spyre.mlir"], f"the default device (package data) is not in the wheel: {data}"
    modules = source_modules()
    script = (
        "import importlib, json, sys\n"
        "files = {m: importlib.import_module(m).__file__ for m in json.loads(sys.argv[1])}\n"
        "print(json.dumps(files))\n"
    )
    run = subprocess.run(
        [sys.executable, "-c", script, json.dumps(modules)],
        capture_output=True, text=True, timeout=300, cwd=tmp_path,
        env={"PYTHONPATH": str(unpacked), "PATH": "/usr/bin:/bin"},
    )
    assert run.returncode == 0, run.stderr
    files = json.loads(run.stdout)
    outside = {m: f for m, f in files.items() if not f.startswith(str(unpacked))}
    assert not outside, f"imported from outside the wheel: {outside}"
    entry_points = next(unpacked.glob("spyre_mlir-*.dist-info")) / "entry_points.txt"
    text = entry_points.read_text()
    assert "spyre-opt = spyre_mlir.tools.spyre_opt:main" in text and "xdsl.universe" in text

"""Rules that keep the tree one middle end (issue 19), checked on the source.

- A pass imports no other pass, and no module imports a private name (`_x`)
  of another module.
- The interpreter and the analysis layer import no pass; the analysis layer
  imports no interpreter.
- A hardware fact (core count, LX size, stick size, alignment, rates, clock)
  is written in one module: `spyre_mlir/target.py`.
- An inter-pass `spyre.*` attribute is spelled as a string only where it is
  declared (`dialects/spyre.py`).
- Every pass has a unit test file named after it, and a lit test in the
  stage folder of its module.

Imports are read with `ast` (also the ones inside functions), so a rule
cannot be dodged by importing late.
"""

from __future__ import annotations

import ast
import functools
import re
from pathlib import Path

import pytest
from conftest import REPO

from spyre_mlir.passes import SPYRE_PASSES

# Top-level folders of the package and their import names (pyproject.toml's package-dir).
PACKAGES = {
    "spyre_mlir": "spyre_mlir",
    "dialects": "spyre_mlir.dialects",
    "passes": "spyre_mlir.passes",
    "tools": "spyre_mlir.tools",
    "interpreter": "spyre_mlir.interpreter",
    "analysis": "spyre_mlir.analysis",
}
PASS_MODULES = {target.partition(":")[0] for target in SPYRE_PASSES.values()}


def _module_name(path: Path) -> str:
    folder = path.relative_to(REPO).parts[0]
    parts = path.relative_to(REPO / folder).with_suffix("").parts
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join((PACKAGES[folder], *parts))


def _sources() -> dict[str, Path]:
    found = {}
    for folder in PACKAGES:
        for path in sorted((REPO / folder).rglob("*.py")):
            found[_module_name(path)] = path
    return found


SOURCES = _sources()


def _imports(path: Path) -> list[tuple[int, str, str | None]]:
    """(line, module, name) for each import in `path` (name None for `import module`)."""
    tree = ast.parse(path.read_text(), str(path))
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [(node.lineno, alias.name, None) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out += [(node.lineno, node.module, alias.name) for alias in node.names]
    return out


def _imported_modules(path: Path) -> list[tuple[int, str]]:
    """Every module `path` imports, with `from package import module` resolved to the module."""
    out = []
    for line, module, name in _imports(path):
        if name is not None and f"{module}.{name}" in SOURCES:
            out.append((line, f"{module}.{name}"))
        else:
            out.append((line, module))
    return out


def _where(path: Path, line: int) -> str:
    return f"{path.relative_to(REPO)}:{line}"


def test_a_pass_imports_no_other_pass():
    bad = []
    for module in sorted(PASS_MODULES):
        path = SOURCES[module]
        for line, imported in _imported_modules(path):
            if imported in PASS_MODULES and imported != module:
                bad.append(f"{_where(path, line)} imports the pass {imported}")
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize("layer", ["spyre_mlir.interpreter", "spyre_mlir.analysis", "spyre_mlir.dialects"])
def test_lower_layers_import_no_pass(layer):
    bad = []
    for module, path in SOURCES.items():
        if module != layer and not module.startswith(layer + "."):
            continue
        for line, imported in _imported_modules(path):
            if imported in PASS_MODULES or imported.startswith("spyre_mlir.passes."):
                bad.append(f"{_where(path, line)} imports {imported}")
    assert not bad, "\n".join(bad)


def test_the_analysis_layer_imports_no_interpreter():
    bad = []
    for module, path in SOURCES.items():
        if not module.startswith("spyre_mlir.analysis"):
            continue
        for line, imported in _imported_modules(path):
            if imported.startswith("spyre_mlir.interpreter"):
                bad.append(f"{_where(path, line)} imports {imported}")
    assert not bad, "\n".join(bad)


def test_no_private_names_across_modules():
    bad = []
    for module, path in SOURCES.items():
        for line, imported, name in _imports(path):
            if not imported.startswith("spyre_mlir") or imported == module:
                continue
            if name is not None and name.startswith("_") and not name.startswith("__"):
                bad.append(f"{_where(path, line)} imports the private name {imported}.{name}")
            elif any(part.startswith("_") and part != "__init__" for part in imported.split(".")[1:]):
                bad.append(f"{_where(path, line)} imports the private module {imported}")
    assert not bad, "\n".join(bad)


# A hardware fact written as a number in code (not in prose): a name that says what it is,
# bound to a number, or the LX size as a constant expression anywhere.
FACT_NAMES = {
    "alignment": re.compile(r"align", re.I),
    "bandwidth": re.compile(r"bandwidth", re.I),
    "clock": re.compile(r"clock", re.I),
    "core count": re.compile(r"^_?(default_)?(num_)?cores$", re.I),
    "LX bytes": re.compile(r"^_?(default_)?lx_(bytes|size|limit)$", re.I),
    "stick bytes": re.compile(r"^_?(default_)?stick_bytes$", re.I),
}
LX_BYTES = 2 * 1024 * 1024
TARGET_MODULE = "spyre_mlir.target"


def _number(node: ast.AST) -> float | None:
    """The value of a constant arithmetic expression, else None."""
    if isinstance(node, ast.Constant) and isinstance(node.value, int | float) and not isinstance(node.value, bool):
        return node.value
    if isinstance(node, ast.BinOp):
        left, right = _number(node.left), _number(node.right)
        if left is None or right is None:
            return None
        ops = {ast.Mult: lambda a, b: a * b, ast.Pow: lambda a, b: a**b, ast.LShift: lambda a, b: int(a) << int(b),
               ast.Add: lambda a, b: a + b}
        fn = ops.get(type(node.op))
        return fn(left, right) if fn else None
    return None


def _bindings(tree: ast.AST):
    """(line, name, value node) for assignments, annotated assignments, keyword arguments and parameter defaults."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                name = target.id if isinstance(target, ast.Name) else getattr(target, "attr", None)
                if name:
                    yield node.lineno, name, node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            name = node.target.id if isinstance(node.target, ast.Name) else getattr(node.target, "attr", None)
            if name:
                yield node.lineno, name, node.value
        elif isinstance(node, ast.keyword) and node.arg:
            yield node.value.lineno, node.arg, node.value
        elif isinstance(node, ast.arguments):
            positional = node.posonlyargs + node.args
            for arg, default in zip(positional[len(positional) - len(node.defaults):], node.defaults):
                yield default.lineno, arg.arg, default
            for arg, default in zip(node.kwonlyargs, node.kw_defaults):
                if default is not None:
                    yield default.lineno, arg.arg, default


@functools.cache
def _fact_sites(path: Path) -> list[tuple[str, int, str]]:
    tree = ast.parse(path.read_text(), str(path))
    sites = []
    for line, name, value in _bindings(tree):
        number = _number(value)
        if not number:  # zero is a counter's start or "off", not a fact
            continue
        for fact, rx in FACT_NAMES.items():
            if rx.search(name):
                sites.append((fact, line, f"{name} = {number}"))
    for node in ast.walk(tree):
        if isinstance(node, ast.BinOp) and _number(node) == LX_BYTES:
            sites.append(("LX bytes", node.lineno, ast.unparse(node)))
        elif isinstance(node, ast.Constant) and node.value == LX_BYTES and not isinstance(node.value, bool):
            sites.append(("LX bytes", node.lineno, str(node.value)))
    return sites


@pytest.mark.parametrize("fact", sorted(FACT_NAMES))
def test_a_hardware_fact_is_written_in_one_module(fact):
    bad = []
    for module, path in SOURCES.items():
        if module == TARGET_MODULE:
            continue
        bad += [f"{_where(path, line)}: {text}" for found, line, text in _fact_sites(path) if found == fact]
    assert not bad, f"the {fact} is written outside spyre_mlir/target.py:\n" + "\n".join(sorted(set(bad)))


def test_the_target_module_holds_each_fact():
    found = {fact for fact, _, _ in _fact_sites(SOURCES[TARGET_MODULE])}
    assert found >= set(FACT_NAMES) - {"core count"}, f"spyre_mlir/target.py lacks {set(FACT_NAMES) - found}"


SPYRE_ATTR = re.compile(r"""["']spyre\.(\w+)["']""")


def test_spyre_attributes_are_spelled_where_declared():
    declared = SOURCES["spyre_mlir.dialects.spyre"].read_text()
    names = set(SPYRE_ATTR.findall(declared))
    bad = []
    for module, path in SOURCES.items():
        if module == "spyre_mlir.dialects.spyre":
            continue
        for number, line in enumerate(path.read_text().splitlines(), 1):
            for name in SPYRE_ATTR.findall(line.split("#", 1)[0]):
                if name in names:
                    bad.append(f"{_where(path, number)}: 'spyre.{name}' (use the constant of dialects/spyre.py)")
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize("key", sorted(SPYRE_PASSES))
def test_every_pass_has_a_unit_test_file_named_after_it(key):
    module = SPYRE_PASSES[key].partition(":")[0].rsplit(".", 1)[1]
    path = REPO / "test" / "unit" / f"test_{module}.py"
    assert path.is_file(), f"missing {path.relative_to(REPO)} (the unit tests of pass '{key}')"
    assert key in path.read_text() or module in path.read_text()

"""The pass registry: each of our passes (registry key == pass name, own
module, used by a lit test), and the allow-list of upstream xDSL passes
(pure IR rewrites only: nothing that runs a program, touches files or
prints)."""

from __future__ import annotations

import inspect

import pytest
from conftest import REPO

from spyre_mlir.diagnostics import DiagnosticError
from spyre_mlir.passes import SPYRE_PASSES, UPSTREAM_PASSES, get_all_passes, summary
from spyre_mlir.passes.pipelines import PIPELINES, PassManager

LIT = REPO / "test" / "lit"


@pytest.mark.parametrize("key", sorted(SPYRE_PASSES))
def test_name_equals_key(key):
    assert get_all_passes()[key]().name == key


STAGES = ("frontend", "bundle", "schedule", "spatial")


@pytest.mark.parametrize("key", sorted(SPYRE_PASSES))
def test_one_module_per_pass(key):
    cls = get_all_passes()[key]()
    assert cls.__module__.startswith("spyre_mlir.passes.") and cls.__module__.endswith("." + key.replace("-", "_"))
    stage = cls.__module__.split(".")[2]
    assert stage in STAGES, f"{key}: module {cls.__module__} is not in a stage folder {STAGES}"
    assert cls.__doc__ and type(cls).__doc__, f"{key} needs a docstring"
    module_doc = __import__(cls.__module__, fromlist=["_"]).__doc__
    assert "Before" in module_doc and "After" in module_doc, f"{key}: docstring needs a before/after example"


@pytest.mark.parametrize("key", sorted(SPYRE_PASSES))
def test_pass_has_its_lit_test(key):
    stage = SPYRE_PASSES[key].split(".")[2]
    lit_file = LIT / "passes" / stage / f"{key}.mlir"
    assert lit_file.is_file(), f"missing {lit_file}"
    assert key in lit_file.read_text().split("RUN:", 1)[1].splitlines()[0]


def test_ours_are_in_the_registry():
    assert set(SPYRE_PASSES) <= set(get_all_passes())
    assert {"cse", "canonicalize"} <= set(get_all_passes())


@pytest.mark.parametrize("key", sorted(get_all_passes()))
def test_every_registered_name_is_its_class_name(key):
    cls = get_all_passes()[key]()
    assert cls.name == key
    assert summary(key), f"{key}: no one-line summary for --list-passes"


def test_registry_is_ours_then_the_allow_list():
    assert list(get_all_passes()) == [*SPYRE_PASSES, *(n for n in UPSTREAM_PASSES if n not in SPYRE_PASSES)]
    assert not set(SPYRE_PASSES) & set(UPSTREAM_PASSES), "one of ours shadows an upstream pass"


DANGEROUS = {
    "mlir-opt": "runs the program named in its `executable` option",
    "apply-pdl": "reads the file named in its `pdl_file` option",
    "apply-pdl-interp": "reads the file named in its `pdl_interp_file` option",
    "apply-eqsat-pdl": "reads the file named in its `pdl_file` option",
    "apply-eqsat-pdl-interp": "reads the file named in its `pdl_interp_file` option",
    "eqsat-add-costs": "reads the file named in its `cost_file` option",
    "eqsat-serialize-egraph": "prints JSON to stdout",
    "distribute-stencil": "prints to stdout",
    "convert-scf-to-openmp": "not KTIR: lowers to OpenMP",
}


@pytest.mark.parametrize("name", sorted(DANGEROUS))
def test_dangerous_xdsl_passes_are_not_available(name):
    from xdsl.transforms import get_all_passes as xdsl_passes

    assert name in xdsl_passes(), f"xDSL no longer has {name}: update DANGEROUS"
    assert name not in get_all_passes()
    with pytest.raises(DiagnosticError) as info:
        PassManager.parse(name)
    assert f"pass '{name}' is not available" in info.value.diagnostic.message


@pytest.mark.parametrize("name", sorted(UPSTREAM_PASSES))
def test_allowed_upstream_passes_touch_nothing_outside_the_ir(name):
    """A guard on the allow-list: the pass's module neither runs programs,
    opens files, reads the environment nor prints."""
    from xdsl.transforms import get_all_passes as xdsl_passes

    source = inspect.getsource(inspect.getmodule(xdsl_passes()[name]()))
    for token in ("subprocess", "os.system", "open(", "print(", "sys.stdout", "sys.stderr", "environ",
                  "pathlib", "shutil", "importlib", "eval(", "exec("):
        assert token not in source, f"{name}: its module uses {token!r}; review it before allowing it"


@pytest.mark.parametrize("name", sorted(PIPELINES))
def test_pipelines_build(name):
    pm = PassManager.from_pipeline(name)
    assert ",".join(pm.names) == PIPELINES[name][0]


def test_plugin_entry_point_exposes_our_dialects_and_passes():
    from importlib.metadata import entry_points

    (ep,) = [e for e in entry_points(group="xdsl.universe") if e.name == "spyre-mlir"]
    universe = ep.load()
    assert {"ktdp", "spyre"} <= set(universe.all_dialects)
    assert set(universe.all_passes) == set(SPYRE_PASSES), "the plugin exports our passes only"

"""Each of our passes: registry key == pass name, own module, used by a lit test."""

from __future__ import annotations

import pytest
from conftest import REPO

from spyre_mlir.passes import SPYRE_PASSES, get_all_passes
from spyre_mlir.passes.pipelines import PIPELINES, PassManager

LIT = REPO / "test" / "lit"


@pytest.mark.parametrize("key", sorted(SPYRE_PASSES))
def test_name_equals_key(key):
    assert SPYRE_PASSES[key]().name == key


@pytest.mark.parametrize("key", sorted(SPYRE_PASSES))
def test_one_module_per_pass(key):
    cls = SPYRE_PASSES[key]()
    assert cls.__module__ == "spyre_mlir.passes." + key.replace("-", "_")
    assert cls.__doc__ and type(cls).__doc__, f"{key} needs a docstring"
    module_doc = __import__(cls.__module__, fromlist=["_"]).__doc__
    assert "Before" in module_doc and "After" in module_doc, f"{key}: docstring needs a before/after example"


@pytest.mark.parametrize("key", sorted(SPYRE_PASSES))
def test_pass_has_its_lit_test(key):
    lit_file = LIT / "passes" / f"{key}.mlir"
    assert lit_file.is_file(), f"missing {lit_file}"
    assert key in lit_file.read_text().split("RUN:", 1)[1].splitlines()[0]


def test_ours_are_in_the_registry():
    assert set(SPYRE_PASSES) <= set(get_all_passes())
    assert {"cse", "canonicalize"} <= set(get_all_passes())


@pytest.mark.parametrize("name", sorted(PIPELINES))
def test_pipelines_build(name):
    pm = PassManager.from_pipeline(name)
    assert ",".join(pm.names) == PIPELINES[name][0]


def test_plugin_entry_point_exposes_our_dialects_and_passes():
    from importlib.metadata import entry_points

    (ep,) = [e for e in entry_points(group="xdsl.universe") if e.name == "spyre-mlir"]
    universe = ep.load()
    assert {"ktdp", "spyre"} <= set(universe.all_dialects)
    assert set(SPYRE_PASSES) <= set(universe.all_passes)

"""Stage contracts (spyre_mlir.passes.contracts): every pass of ours declares the stages it takes and
makes, and the pass manager refuses a pass whose input is in the wrong stage with a located error
naming what to run first, before the pass runs."""

from __future__ import annotations

import functools

import pytest

import spyre_mlir
from spyre_mlir.dialects.spatial import PHASES
from spyre_mlir.dialects.spyre import COMPUTE_GROUP_ATTR
from spyre_mlir.ir import print_ir
from spyre_mlir.passes import SPYRE_PASSES, contracts
from spyre_mlir.passes.contracts import is_group, require_groups
from spyre_mlir.passes.spatial.phases import programs_in

KERNEL = """\
func.func @scale(%x: index, %y: index) attributes {grid = [4]} {
  %c = ktdp.get_compute_tile_id : index
  %c4 = arith.constant 4 : index
  %o = arith.muli %c, %c4 : index
  %xv = ktdp.construct_memory_view %x, sizes: [16], strides: [1] {coordinate_set = affine_set<(d0) : (d0 >= 0, -d0 + 15 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<16xf32>
  %yv = ktdp.construct_memory_view %y, sizes: [16], strides: [1] {coordinate_set = affine_set<(d0) : (d0 >= 0, -d0 + 15 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<16xf32>
  %t = ktdp.construct_access_tile %xv[%o] {access_tile_set = affine_set<(d0) : (d0 >= 0, -d0 + 3 >= 0)>, access_tile_order = affine_map<(d0) -> (d0)>} : memref<16xf32> -> !ktdp.access_tile<4xindex>
  %a = ktdp.load %t : !ktdp.access_tile<4xindex> -> tensor<4xf32>
  %b = arith.addf %a, %a : tensor<4xf32>
  %u = ktdp.construct_access_tile %yv[%o] {access_tile_set = affine_set<(d0) : (d0 >= 0, -d0 + 3 >= 0)>, access_tile_order = affine_map<(d0) -> (d0)>} : memref<16xf32> -> !ktdp.access_tile<4xindex>
  ktdp.store %b, %u : tensor<4xf32>, !ktdp.access_tile<4xindex>
  func.return
}
"""

SPATIAL = "spatial-tile,spatial-place,spatial-fuse-readers,spatial-size-buffers,spatial-synthesize-handshakes,spatial-verify"
PASSES_TO = {
    "kernel": "",
    "grouped": "ktdp-extract-compute-groups",
    "planned": "ktdp-extract-compute-groups,spyre-plan-scratchpad",
    "distributed": "ktdp-extract-compute-groups,spyre-distribute-work",
    "bundle": "ktdp-extract-compute-groups,spyre-emit-bundle{out-dir=OUT format=ktir}",
    **{phase: ",".join(SPATIAL.split(",")[: i + 1]) for i, phase in enumerate(PHASES)},
}
"""The passes that take KERNEL to each stage."""


@functools.cache
def _text_at(stage: str, out_dir: str) -> str:
    module = spyre_mlir.parse(KERNEL)
    if PASSES_TO[stage]:
        spyre_mlir.PassManager.parse(PASSES_TO[stage].replace("OUT", out_dir)).run(module)
    return print_ir(module)


@pytest.fixture
def at(tmp_path_factory):
    out_dir = str(tmp_path_factory.getbasetemp() / "bundle")

    def module_at(stage: str):
        return spyre_mlir.parse(_text_at(stage, out_dir))

    return module_at


def _refusal(module, passes: str) -> spyre_mlir.DiagnosticError:
    before = print_ir(module)
    with pytest.raises(spyre_mlir.DiagnosticError) as info:
        spyre_mlir.PassManager.parse(passes).run(module)
    assert print_ir(module) == before, "a refused pass changed the module"
    return info.value


# Each pass of ours that has a requirement, on a module in a stage it does not take.
REFUSALS = [
    ("spyre-physicalize-layouts", "grouped",
     "pass 'spyre-physicalize-layouts' needs a kernel, but this module is already split into compute groups: "
     "run 'spyre-physicalize-layouts' before 'ktdp-extract-compute-groups'"),
    ("ktdp-hbm-roundtrip", "grouped",
     "pass 'ktdp-hbm-roundtrip' needs a kernel, but this module is already split into compute groups: "
     "run 'ktdp-hbm-roundtrip' before 'ktdp-extract-compute-groups'"),
    ("ktdp-extract-compute-groups", "bundle",
     "pass 'ktdp-extract-compute-groups' needs a kernel, but this module is already an emitted bundle: "
     "'ktdp-extract-compute-groups' has run on it already"),
    ("ktdp-extract-compute-groups", "tiled",
     "pass 'ktdp-extract-compute-groups' needs a kernel, but this module is already a spatial program "
     "(@scale, phase tiled): run 'ktdp-extract-compute-groups' on the kernel, not after 'spatial-tile'"),
    # ktdf-build-pipelines takes a kernel whose functions are each one group (dataflow-scheduler's inputs);
    # one of several groups is refused at the load that splits it (test_ktdf_build_pipelines.py).
    ("ktdf-build-pipelines", "bundle",
     "pass 'ktdf-build-pipelines' needs extracted compute groups, but this module is already an emitted bundle: "
     "run 'ktdf-build-pipelines' before 'spyre-emit-bundle'"),
    ("ktdf-expose-reduction-loops", "bundle",
     "pass 'ktdf-expose-reduction-loops' needs extracted compute groups, but this module is already an emitted "
     "bundle: run 'ktdf-expose-reduction-loops' before 'spyre-emit-bundle'"),
    ("spyre-coarse-tile", "kernel",
     "pass 'spyre-coarse-tile' needs extracted compute groups: run 'ktdp-extract-compute-groups' first"),
    ("spyre-coarse-tile", "planned",
     "pass 'spyre-coarse-tile' needs compute groups that 'spyre-plan-scratchpad' has not processed yet"),
    ("spyre-coarse-tile", "distributed",
     "pass 'spyre-coarse-tile' needs compute groups that 'spyre-distribute-work' has not processed yet"),
    ("spyre-coarse-tile", "placed",
     "pass 'spyre-coarse-tile' needs extracted compute groups, but this module is already a spatial program "
     "(@scale, phase placed): run 'spyre-coarse-tile' on the kernel after 'ktdp-extract-compute-groups', "
     "not after 'spatial-tile'"),
    ("spyre-unroll-loops", "kernel",
     "pass 'spyre-unroll-loops' needs the spyre_loop.loop nests of tiled compute groups: "
     "run 'ktdp-extract-compute-groups' and 'spyre-coarse-tile' first"),
    ("spyre-distribute-work", "bundle", "already an emitted bundle: run 'spyre-distribute-work' before 'spyre-emit-bundle'"),
    ("spyre-plan-scratchpad", "kernel", "run 'ktdp-extract-compute-groups' first"),
    ("spyre-emit-bundle", "kernel",
     "pass 'spyre-emit-bundle' needs extracted compute groups: run 'ktdp-extract-compute-groups' first"),
    ("spyre-emit-bundle", "bundle", "already an emitted bundle: 'spyre-emit-bundle' has run on it already"),
    ("spatial-tile", "grouped",
     "pass 'spatial-tile' needs a kernel, but this module is already split into compute groups: "
     "run 'spatial-tile' on the kernel, not after 'ktdp-extract-compute-groups'"),
    ("spatial-tile", "bundle", "run 'spatial-tile' on the kernel, not after 'ktdp-extract-compute-groups'"),
    ("spatial-tile", "tiled",
     "pass 'spatial-tile' needs a kernel, but this module is already a spatial program (@scale, phase tiled): "
     "'spatial-tile' has run on it already"),
    ("spatial-place", "kernel",
     "spatial-place needs a spatial.program in phase tiled; the module has none: run spatial-tile first"),
    ("spatial-place", "grouped",
     "spatial-place needs a spatial.program in phase tiled; the module has none, it is split into compute groups: "
     "run spatial-tile on the kernel, not ktdp-extract-compute-groups"),
    ("spatial-place", "placed",
     "spatial-place needs a program in phase tiled, got placed (program @scale); the program is past this phase"),
    ("spatial-fuse-readers", "kernel", "the module has none: run spatial-tile, spatial-place first"),
    ("spatial-fuse-readers", "tiled",
     "spatial-fuse-readers needs a program in phase placed, got tiled (program @scale); run spatial-place first"),
    ("spatial-size-buffers", "tiled",
     "spatial-size-buffers needs a program in phase fused, got tiled (program @scale); "
     "run spatial-place, spatial-fuse-readers first"),
    ("spatial-synthesize-handshakes", "verified", "got verified (program @scale); the program is past this phase"),
    ("spatial-verify", "placed",
     "spatial-verify needs a program in phase synthesized, got placed (program @scale; a verified program is "
     "re-checked); run spatial-fuse-readers, spatial-size-buffers, spatial-synthesize-handshakes first"),
]


@pytest.mark.parametrize(("pass_name", "stage", "message"), REFUSALS, ids=[f"{p}@{s}" for p, s, _ in REFUSALS])
def test_a_pass_on_a_module_in_the_wrong_stage_is_refused_with_a_located_error(at, pass_name, stage, message):
    err = _refusal(at(stage), pass_name)
    assert message in err.diagnostic.message
    assert err.diagnostic.location is not None, err.diagnostic.message


def test_every_pass_with_a_requirement_has_a_refusal_test():
    required = {name for name, c in contracts.CONTRACTS.items() if c.requires}
    assert required == {p for p, _, _ in REFUSALS}


@pytest.mark.parametrize("passes", [
    "spyre-physicalize-layouts", "ktdp-hbm-roundtrip", "ktdp-extract-compute-groups",
    "ktdp-extract-compute-groups,ktdf-build-pipelines",
    "ktdp-extract-compute-groups,spyre-coarse-tile,spyre-distribute-work,spyre-plan-scratchpad,spyre-unroll-loops",
    SPATIAL, SPATIAL + ",spatial-verify",
])
def test_passes_in_order_are_taken(at, passes):
    spyre_mlir.PassManager.parse(passes).run(at("kernel"))


def test_the_pass_manager_refuses_before_the_pass_runs(at, monkeypatch):
    """A pass whose own code does not check the stage is refused all the same."""
    from spyre_mlir.passes.frontend.ktdp_hbm_roundtrip import KtdpHbmRoundtripPass

    def fail(*args):
        raise AssertionError("the pass ran")

    monkeypatch.setattr(KtdpHbmRoundtripPass, "apply", fail)
    assert "needs a kernel" in _refusal(at("grouped"), "ktdp-hbm-roundtrip").diagnostic.message


def test_a_module_at_no_stage():
    """No access, no group, no program: passes on groups have nothing to do; passes on programs refuse it
    (without a location: there is nothing to point at); spatial-verify has nothing to verify."""
    for passes in ("spyre-coarse-tile,spyre-distribute-work,spyre-plan-scratchpad,ktdf-build-pipelines", "spatial-verify"):
        spyre_mlir.PassManager.parse(passes).run(spyre_mlir.parse("builtin.module {}\n"))
    err = _refusal(spyre_mlir.parse("builtin.module {}\n"), "spatial-place")
    assert err.diagnostic.message == "spatial-place needs a spatial.program in phase tiled; the module has none"


def test_spatial_verify_takes_modules_without_a_program(at):
    for stage in ("kernel", "grouped"):
        module = at(stage)
        before = print_ir(module)
        spyre_mlir.PassManager.parse("spatial-verify").run(module)
        assert print_ir(module) == before


def test_the_guards_passes_call_give_the_same_errors(at):
    """`contracts.require_groups` and `phases.programs_in` (for callers of `pass.apply`) say what the pass
    manager says."""
    with pytest.raises(spyre_mlir.DiagnosticError) as info:
        require_groups(at("kernel"), "spyre-coarse-tile")
    assert info.value.diagnostic.message == (
        "pass 'spyre-coarse-tile' needs extracted compute groups: run 'ktdp-extract-compute-groups' first"
    )
    with pytest.raises(spyre_mlir.DiagnosticError, match="got tiled .*; run spatial-place first"):
        programs_in(at("tiled"), "spatial-fuse-readers", "placed")
    assert [g.sym_name.data for g in require_groups(at("grouped"), "spyre-plan-scratchpad")] == ["local_schedule_0"]
    assert len(programs_in(at("placed"), "spatial-fuse-readers", "placed")) == 1


# -- the vocabulary and the table -----------------------------------------------------------


def test_every_pass_of_ours_has_a_contract():
    assert set(contracts.CONTRACTS) == set(SPYRE_PASSES)


def test_each_stage_is_made_by_one_pass_and_every_required_stage_is_reachable():
    made = [c.produces for c in contracts.CONTRACTS.values() if c.produces]
    assert len(made) == len(set(made)), "two passes make one stage"
    for name, stage in contracts.STAGES.items():
        if stage.follows is not None:
            assert contracts.maker(name) is not None, name
    for c in contracts.CONTRACTS.values():
        for stage in c.requires:
            assert contracts.path("kernel", stage) is not None, stage
        for mark, _ in c.before:
            assert mark in contracts.MARKS and contracts.maker(mark) is not None


def test_paths_between_stages():
    assert contracts.path("kernel", "sized") == [
        "spatial-tile", "spatial-place", "spatial-fuse-readers", "spatial-size-buffers"]
    assert contracts.path("kernel", "bundle") == ["ktdp-extract-compute-groups", "spyre-emit-bundle"]
    assert contracts.path("placed", "placed") == []
    assert contracts.path("bundle", "grouped") is None
    assert contracts.path("grouped", "tiled") is None


def test_stages_read_from_the_ir(at):
    assert [s for s, _ in contracts.stages_of(at("kernel"))] == ["kernel"]
    assert [s for s, _ in contracts.stages_of(at("grouped"))] == ["grouped"]
    assert [s for s, _ in contracts.stages_of(at("planned"))] == ["grouped"]
    assert [s for s, _ in contracts.stages_of(at("bundle"))] == ["bundle"]
    for phase in PHASES:
        assert [s for s, _ in contracts.stages_of(at(phase))] == [phase]
    assert contracts.stages_of(spyre_mlir.parse("builtin.module {}\n")) == []


def test_a_group_is_a_function_marked_compute_group(at):
    module = at("grouped")
    (group,) = contracts.group_functions(module)
    assert COMPUTE_GROUP_ATTR in group.attributes and is_group(group)
    text = """\
builtin.module {
  builtin.module @g {
    func.func @g(%x: index) attributes {spyre.compute_group} {
      func.return
    }
  }
  func.func @k(%x: index) {
    func.return
  }
}
"""
    names = [g.sym_name.data for g in contracts.group_functions(spyre_mlir.parse(text))]
    assert names == ["g"]

"""Unit tests of ktdf-build-pipelines (passes/schedule/ktdf_build_pipelines.py).

After ktdp-extract-compute-groups, the pass turns each block of a compute
group that is one load -> compute -> store pass into a `ktdf.pipeline` of
three token-ordered stages: a load stage (`depends_in(none)`) moving each
tile into a FIFO slot (`ktdf.data_transfer` for a box tile in order, else
`ktdp.load` + `ktdf.write_to_fifo`), a compute stage on the SFU reading the
slots, and a store stage. Blocks that are not such a pass (a loop carrying a
value) stay KTIR, and their loops are tried in turn.

Tested: the pipeline's stages, tokens, slots and transfers; a reduction loop
stays KTIR; a second run changes nothing; translation validation (the kernel
before extraction, after it and after the pass on seeded inputs, and a NumPy
oracle); the located refusals of a kernel not split into groups (pass
manager and `apply`) and of an emitted bundle; the may-alias rule (a load
of what an earlier store of the group writes keeps the group as it is). The
printed pipelines are in test/lit/passes/schedule/ktdf-build-pipelines.mlir.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from conftest import SHARED, corpus_params
from xdsl.context import Context

import spyre_mlir
from spyre_mlir.dialects import ktdf
from spyre_mlir.dialects.ktdp import LoadOp
from spyre_mlir.ir import print_ir
from spyre_mlir.passes.contracts import group_functions
from spyre_mlir.passes.schedule.ktdf_build_pipelines import KtdfBuildPipelinesPass

EXTRACT = "ktdp-extract-compute-groups"
PASS = "ktdf-build-pipelines"

# out = exp(x) * y, row by row: each of 2 cores takes 4 rows of 32 in a loop.
ROWS = """
#all = affine_set<(d0, d1) : (d0 >= 0, -d0 + 7 >= 0, d1 >= 0, -d1 + 31 >= 0)>
#row = affine_set<(d0, d1) : (d0 >= 0, -d0 >= 0, d1 >= 0, -d1 + 31 >= 0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @rows(%x: index, %y: index, %out: index) attributes {grid = [2]} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %core = ktdp.get_compute_tile_id : index
  %first = arith.muli %core, %c4 : index
  %xv = ktdp.construct_memory_view %x, sizes: [8, 32], strides: [32, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<8x32xf32>
  %yv = ktdp.construct_memory_view %y, sizes: [8, 32], strides: [32, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<8x32xf32>
  %ov = ktdp.construct_memory_view %out, sizes: [8, 32], strides: [32, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<8x32xf32>
  scf.for %i = %c0 to %c4 step %c1 {
    %r = arith.addi %first, %i : index
    %xt = ktdp.construct_access_tile %xv[%r, %c0] {access_tile_set = #row, access_tile_order = #id2} : memref<8x32xf32> -> !ktdp.access_tile<1x32xindex>
    %yt = ktdp.construct_access_tile %yv[%r, %c0] {access_tile_set = #row, access_tile_order = #id2} : memref<8x32xf32> -> !ktdp.access_tile<1x32xindex>
    %a = ktdp.load %xt : !ktdp.access_tile<1x32xindex> -> tensor<1x32xf32>
    %b = ktdp.load %yt : !ktdp.access_tile<1x32xindex> -> tensor<1x32xf32>
    %e = math.exp %a : tensor<1x32xf32>
    %m = arith.mulf %e, %b : tensor<1x32xf32>
    %ot = ktdp.construct_access_tile %ov[%r, %c0] {access_tile_set = #row, access_tile_order = #id2} : memref<8x32xf32> -> !ktdp.access_tile<1x32xindex>
    ktdp.store %m, %ot : tensor<1x32xf32>, !ktdp.access_tile<1x32xindex>
  }
  return
}
"""

# out = the sum of the four 64-element quarters of x: a loop carrying a value.
REDUCTION = """
#all = affine_set<(d0) : (d0 >= 0, -d0 + 63 >= 0)>
#id1 = affine_map<(d0) -> (d0)>
func.func @reduction(%x: index, %out: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  %xv = ktdp.construct_memory_view %x, sizes: [256], strides: [1] {coordinate_set = affine_set<(d0) : (d0 >= 0, -d0 + 255 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<256xf32>
  %ov = ktdp.construct_memory_view %out, sizes: [64], strides: [1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<64xf32>
  %zero = arith.constant dense<0.0> : tensor<64xf32>
  %s = scf.for %i = %c0 to %c4 step %c1 iter_args(%a = %zero) -> (tensor<64xf32>) {
    %off = arith.muli %i, %c64 : index
    %t = ktdp.construct_access_tile %xv[%off] {access_tile_set = #all, access_tile_order = #id1} : memref<256xf32> -> !ktdp.access_tile<64xindex>
    %d = ktdp.load %t : !ktdp.access_tile<64xindex> -> tensor<64xf32>
    %n = arith.addf %a, %d : tensor<64xf32>
    scf.yield %n : tensor<64xf32>
  }
  %ot = ktdp.construct_access_tile %ov[%c0] {access_tile_set = #all, access_tile_order = #id1} : memref<64xf32> -> !ktdp.access_tile<64xindex>
  ktdp.store %s, %ot : tensor<64xf32>, !ktdp.access_tile<64xindex>
  return
}
"""


def _built(text: str, passes: str = f"{EXTRACT},{PASS}"):
    module = spyre_mlir.parse(text)
    spyre_mlir.PassManager.parse(passes).run(module)
    return module


def _of(root, cls) -> list:
    return [op for op in root.walk() if isinstance(op, cls)]


def _rows_args(seed: int) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    x, y = (rng.standard_normal((8, 32)).astype(np.float32) for _ in range(2))
    return dict(x=x, y=y, out=np.zeros((8, 32), np.float32))


def _run_rows(module, args: dict) -> np.ndarray:
    return np.asarray(spyre_mlir.interpret(module, "rows", **{k: v.copy() for k, v in args.items()})["out"])


def test_a_load_compute_store_body_becomes_a_three_stage_pipeline():
    module = _built(ROWS)
    (pipeline,) = _of(module, ktdf.PipelineOp)
    load, compute, store = _of(pipeline, ktdf.StageOp)
    # Stages are ordered by tokens: none -> load -> compute -> store.
    assert "depends_in(none)" in print_ir(load).splitlines()[0]
    assert [u.data for u in compute.applicable_units.data] == ["SFU"]
    assert load.applicable_units is None and store.applicable_units is None
    # Box tiles in order move by data_transfer: two in (x, y), one out.
    assert len(_of(load, ktdf.DataTransferOp)) == 2 and len(_of(store, ktdf.DataTransferOp)) == 1
    assert len(_of(compute, ktdf.ReadFromFifoOp)) == 2 and len(_of(compute, ktdf.WriteToFifoOp)) == 1
    # The elementwise computes are fused into one linalg.generic, exp first.
    (generic,) = [op for op in compute.walk() if op.name == "linalg.generic"]
    assert [op.name for op in generic.body.block.ops] == ["math.exp", "arith.mulf", "linalg.yield"]
    # No KTIR access is left in the group: every load and store went into the pipeline.
    assert not [op for op in module.walk() if op.name in ("ktdp.load", "ktdp.store")]
    # The loop stays in the kernel and calls the group; in the group, the pipeline sits in a nest of
    # parallel loops over the row's chunks (32 f32: one SIMD vector, so one trip each).
    (group,) = group_functions(module)
    loops = [op for op in group.walk() if op.name == "scf.for"]
    assert len(loops) == 2 and all(str(loop.attributes["loop_type"]) == "#ktdf.loop_type<parallel_loop>" for loop in loops)
    assert pipeline.parent_op() is loops[-1] and loops[0].parent_op() is group
    # Each tile is addressed in HBM: the view cast to "DDR", reinterpreted at the row.
    assert [op.name for op in group.walk()].count("memref.reinterpret_cast") == 3
    (compute_loop,) = [op for op in module.walk() if op.name == "scf.for" and op not in loops]
    assert [op.name for op in compute_loop.walk() if op.name == "func.call"] == ["func.call"]


def test_a_loop_carrying_a_value_stays_ktir_and_what_follows_it_is_a_pipeline():
    module = _built(REDUCTION)
    (loop,) = [op for op in module.walk() if op.name == "scf.for" and op.results]
    assert not _of(loop, ktdf.PipelineOp) and _of(loop, LoadOp)
    # The store of the loop's result is a pass of its own, after the loop.
    (pipeline,) = _of(module, ktdf.PipelineOp)
    (write,) = _of(pipeline, ktdf.WriteToFifoOp)
    assert write.data is loop.results[0]


def test_a_second_run_changes_nothing():
    module = _built(ROWS)
    text = print_ir(module)
    spyre_mlir.PassManager.parse(PASS).run(module)
    assert print_ir(module) == text


@pytest.mark.parametrize("seed", [0, 1])
def test_kernel_computes_the_same_before_and_after_and_matches_numpy(seed):
    args = _rows_args(seed)
    source = _run_rows(spyre_mlir.parse(ROWS), args)
    extracted = _run_rows(_built(ROWS, EXTRACT), args)
    piped = _run_rows(_built(ROWS), args)
    np.testing.assert_array_equal(extracted, source)
    np.testing.assert_array_equal(piped, extracted)
    np.testing.assert_allclose(piped, np.exp(args["x"]) * args["y"], rtol=1e-6)


def test_reduction_computes_the_same_and_matches_numpy():
    x = np.random.default_rng(0).standard_normal(256).astype(np.float32)

    def run(module):
        return np.asarray(spyre_mlir.interpret(module, "reduction", x=x.copy(), out=np.zeros(64, np.float32))["out"])

    np.testing.assert_array_equal(run(_built(REDUCTION)), run(spyre_mlir.parse(REDUCTION)))
    np.testing.assert_allclose(run(_built(REDUCTION)), x.reshape(4, 64).sum(0), rtol=1e-5)


# Two compute groups in one function: y = exp(x) goes to HBM, then is read back.
TWO_GROUPS = """
#all = affine_set<(d0) : (d0 >= 0, -d0 + 63 >= 0)>
#id1 = affine_map<(d0) -> (d0)>
func.func @two(%x: index, %y: index, %out: index) {
  %c0 = arith.constant 0 : index
  %xv = ktdp.construct_memory_view %x, sizes: [64], strides: [1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<64xf32>
  %yv = ktdp.construct_memory_view %y, sizes: [64], strides: [1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<64xf32>
  %ov = ktdp.construct_memory_view %out, sizes: [64], strides: [1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<64xf32>
  %xt = ktdp.construct_access_tile %xv[%c0] {access_tile_set = #all, access_tile_order = #id1} : memref<64xf32> -> !ktdp.access_tile<64xindex>
  %yt = ktdp.construct_access_tile %yv[%c0] {access_tile_set = #all, access_tile_order = #id1} : memref<64xf32> -> !ktdp.access_tile<64xindex>
  %ot = ktdp.construct_access_tile %ov[%c0] {access_tile_set = #all, access_tile_order = #id1} : memref<64xf32> -> !ktdp.access_tile<64xindex>
  %a = ktdp.load %xt : !ktdp.access_tile<64xindex> -> tensor<64xf32>
  %e = math.exp %a : tensor<64xf32>
  ktdp.store %e, %yt : tensor<64xf32>, !ktdp.access_tile<64xindex>
  %b = ktdp.load %yt : !ktdp.access_tile<64xindex> -> tensor<64xf32>
  %m = arith.mulf %b, %b : tensor<64xf32>
  ktdp.store %m, %ot : tensor<64xf32>, !ktdp.access_tile<64xindex>
  return
}
"""


def test_a_kernel_that_is_one_group_is_taken_as_it_is():
    """dataflow-scheduler's inputs: a function that is one compute group, not outlined or marked."""
    module = _built(ROWS, PASS)
    assert len(_of(module, ktdf.PipelineOp)) == 1
    args = _rows_args(0)
    np.testing.assert_allclose(_run_rows(module, args), np.exp(args["x"]) * args["y"], rtol=1e-6)


def test_a_kernel_of_several_groups_is_refused_at_the_load_that_splits_it():
    with pytest.raises(spyre_mlir.DiagnosticError) as info:
        spyre_mlir.PassManager.parse(PASS).run(spyre_mlir.parse(TWO_GROUPS))
    exc = info.value
    assert exc.diagnostic.message == (
        "pass 'ktdf-build-pipelines' needs extracted compute groups: this load reads what a store before it "
        "wrote, so @two is more than one group: run 'ktdp-extract-compute-groups' first")
    assert exc.diagnostic.location is not None
    assert "%b = ktdp.load" in TWO_GROUPS.splitlines()[exc.diagnostic.location.line - 1]
    with pytest.raises(spyre_mlir.DiagnosticError, match="run 'ktdp-extract-compute-groups' first"):
        KtdfBuildPipelinesPass().apply(Context(), spyre_mlir.parse(TWO_GROUPS))


def test_a_kernel_of_several_groups_gets_a_pipeline_per_group_after_extraction():
    module = _built(TWO_GROUPS)
    assert len(_of(module, ktdf.PipelineOp)) == 2
    x = np.random.default_rng(3).standard_normal(64).astype(np.float32)

    def run(m):
        args = dict(x=x.copy(), y=np.zeros(64, np.float32), out=np.zeros(64, np.float32))
        return np.asarray(spyre_mlir.interpret(m, "two", **args)["out"])

    np.testing.assert_array_equal(run(module), run(spyre_mlir.parse(TWO_GROUPS)))
    np.testing.assert_allclose(run(module), np.exp(x) ** 2, rtol=1e-5)


def test_an_emitted_bundle_is_refused(tmp_path):
    with pytest.raises(spyre_mlir.DiagnosticError) as info:
        _built(ROWS, f"{EXTRACT},spyre-emit-bundle{{out-dir={tmp_path} format=ktir}},{PASS}")
    assert "already an emitted bundle: run 'ktdf-build-pipelines' before 'spyre-emit-bundle'" in info.value.diagnostic.message


# One compute group: row i of @A doubled into @D, row i of @C copied into @E. The
# store into @D comes before the load of @C: the loads can all move into a load
# stage only if @C does not overlap @D (the may-alias query of spyre_mlir.analysis.access;
# addresses count elements).
GROUP = """
builtin.module @local_schedule_0 {
func.func @local_schedule_0() attributes {spyre.compute_group} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant 4 : index
  %a0 = arith.constant 0 : index
  %c0a = arith.constant CADDR : index
  %d0 = arith.constant 8192 : index
  %e0 = arith.constant 12288 : index
  %A = ktdp.construct_memory_view %a0, sizes: [4, 64], strides: [64, 1] {coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 3 >= 0, d1 >= 0, -d1 + 63 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<4x64xf16>
  %C = ktdp.construct_memory_view %c0a, sizes: [4, 64], strides: [64, 1] {coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 3 >= 0, d1 >= 0, -d1 + 63 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<4x64xf16>
  %D = ktdp.construct_memory_view %d0, sizes: [4, 64], strides: [64, 1] {coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 3 >= 0, d1 >= 0, -d1 + 63 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<4x64xf16>
  %E = ktdp.construct_memory_view %e0, sizes: [4, 64], strides: [64, 1] {coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 3 >= 0, d1 >= 0, -d1 + 63 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<4x64xf16>
  scf.for %i = %c0 to %n step %c1 {
    %ta = ktdp.construct_access_tile %A[%i, %c0] {access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 >= 0, d1 >= 0, -d1 + 63 >= 0)>, access_tile_order = affine_map<(d0, d1) -> (d0, d1)>} : memref<4x64xf16> -> !ktdp.access_tile<1x64xindex>
    %tc = ktdp.construct_access_tile %C[%i, %c0] {access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 >= 0, d1 >= 0, -d1 + 63 >= 0)>, access_tile_order = affine_map<(d0, d1) -> (d0, d1)>} : memref<4x64xf16> -> !ktdp.access_tile<1x64xindex>
    %td = ktdp.construct_access_tile %D[%i, %c0] {access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 >= 0, d1 >= 0, -d1 + 63 >= 0)>, access_tile_order = affine_map<(d0, d1) -> (d0, d1)>} : memref<4x64xf16> -> !ktdp.access_tile<1x64xindex>
    %te = ktdp.construct_access_tile %E[%i, %c0] {access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 >= 0, d1 >= 0, -d1 + 63 >= 0)>, access_tile_order = affine_map<(d0, d1) -> (d0, d1)>} : memref<4x64xf16> -> !ktdp.access_tile<1x64xindex>
    %a = ktdp.load %ta : !ktdp.access_tile<1x64xindex> -> tensor<1x64xf16>
    %e = tensor.empty() : tensor<1x64xf16>
    %r = linalg.add ins(%a, %a : tensor<1x64xf16>, tensor<1x64xf16>) outs(%e : tensor<1x64xf16>) -> tensor<1x64xf16>
    ktdp.store %r, %td : tensor<1x64xf16>, !ktdp.access_tile<1x64xindex>
    %c = ktdp.load %tc : !ktdp.access_tile<1x64xindex> -> tensor<1x64xf16>
    ktdp.store %c, %te : tensor<1x64xf16>, !ktdp.access_tile<1x64xindex>
  }
  return
}
}
"""


def _ops(c_address: int) -> list[str]:
    module = spyre_mlir.parse(GROUP.replace("CADDR", str(c_address)))
    spyre_mlir.PassManager.parse("ktdf-build-pipelines").run(module)
    return [op.name for op in module.walk()]


def test_a_group_without_aliasing_becomes_a_three_stage_pipeline():
    ops = _ops(4096)
    assert ops.count("ktdf.pipeline") == 1 and ops.count("ktdf.stage") == 3
    assert "ktdp.load" not in ops and "ktdp.store" not in ops


@pytest.mark.parametrize("c_address", [8192, 8192 + 3 * 64])
def test_a_load_of_what_an_earlier_store_writes_keeps_the_group_as_it_is(c_address):
    ops = _ops(c_address)
    assert "ktdf.pipeline" not in ops and ops.count("ktdp.load") == 2 and ops.count("ktdp.store") == 2


# -- dataflow-scheduler's construct-three-stage-pipeline tests, CHECK lines unchanged ----------------------

THEIRS = SHARED / "corpus/dataflow-scheduler/test/Conversion/frontend/KTIRToScheduleIR/ConstructThreeStagePipeline"
FILECHECK = Path(sys.executable).parent / "filecheck"


def _attr_end(text: str, i: int) -> int:
    """The offset after the `>` closing the `<` at text[i] (`->` and `>=` inside are not closers)."""
    depth = 0
    j = i
    while j < len(text):
        c = text[j]
        if c == "<":
            depth += 1
        elif c == ">" and text[j - 1] != "-" and text[j + 1 : j + 2] != "=":
            depth -= 1
            if depth == 0:
                return j + 1
        j += 1
    raise ValueError("unbalanced <")


def mlir_style(text: str) -> str:
    """Our printed IR as MLIR prints it where their CHECK lines look: affine maps and sets as aliases
    (`#map = ...` first, then `#set = ...`, at the top), and an op's results as one name (`%p:6 = op`,
    used as `%p#3`). Text printed so already (our printer prints as MLIR does) is left as it is."""
    if re.search(r"^#\w+ = affine_(map|set)<", text, re.MULTILINE) or re.search(r"^\s*%[\w$.-]+:\d+ = ", text, re.MULTILINE):
        return text
    found: dict[str, list[str]] = {"affine_map": [], "affine_set": []}
    out, i = [], 0
    pattern = re.compile(r"affine_(map|set)<")
    while (m := pattern.search(text, i)) is not None:
        end = _attr_end(text, m.end() - 1)
        attr, kind = text[m.start() : end], "affine_" + m.group(1)
        if attr not in found[kind]:
            found[kind].append(attr)
        prefix = "#map" if kind == "affine_map" else "#set"
        k = found[kind].index(attr)
        out += [text[i : m.start()], prefix + (str(k) if k else "")]
        i = end
    out.append(text[i:])
    body = "".join(out)
    renames: dict[str, str] = {}
    lines = []
    for line in body.splitlines():
        m = re.match(r"^(\s*)((?:%[\w$.-]+, )+%[\w$.-]+) = (.*)$", line)
        if m:
            names = [n.strip() for n in m.group(2).split(",")]
            for k, name in enumerate(names):
                renames[name] = f"{names[0]}#{k}"
            line = f"{m.group(1)}{names[0]}:{len(names)} = {m.group(3)}"
        lines.append(line)
    body = "\n".join(lines)
    if renames:
        body = re.sub(r"%[\w$.-]+(?![\w$.#-])", lambda mm: renames.get(mm.group(0), mm.group(0)), body)
        # the group's own name on its definition line keeps no `#0`
        body = re.sub(r"(%[\w$.-]+)#0:(\d+) = ", r"\1:\2 = ", body)
    aliases = [
        f"{'#map' if kind == 'affine_map' else '#set'}{k if k else ''} = {attr}"
        for kind in ("affine_map", "affine_set") for k, attr in enumerate(found[kind])
    ]
    return "\n".join([*aliases, body]) + "\n"


@pytest.mark.parametrize("name", ["basic", "basic_2", "multiple_compute_ops", "arith_math"])
def test_their_check_lines_pass_on_our_output(name):
    """Our output, printed as MLIR prints (aliases, grouped results: `mlir_style`), meets every CHECK and
    CHECK-NEXT line of their test: the same ops, in the same order, with the same types and attributes."""
    path = THEIRS / f"{name}.mlir"
    if not path.exists():
        pytest.skip("../shared/corpus/dataflow-scheduler is not present")
    if not FILECHECK.exists() and shutil.which("filecheck") is None:
        pytest.skip("filecheck is not installed")
    module = spyre_mlir.parse(path)
    spyre_mlir.PassManager.parse(PASS).run(module)
    output = mlir_style(print_ir(module))
    checker = str(FILECHECK) if FILECHECK.exists() else "filecheck"
    done = subprocess.run([checker, str(path)], input=output, text=True, capture_output=True)
    assert done.returncode == 0, done.stderr[-3000:]


def test_mlir_style_leaves_mlir_style_text_alone():
    text = "#map = affine_map<(d0) -> (d0)>\n%a:2 = ktdf.private -> (...)\n"
    assert mlir_style(text) == text


def test_mlir_style_groups_results_and_aliases_maps():
    text = "%a, %b = ktdf.private -> (...)\n  ktdf.stage depends_out(%b) {x = affine_map<(d0) -> (d0)>}\n"
    assert mlir_style(text) == (
        "#map = affine_map<(d0) -> (d0)>\n%a:2 = ktdf.private -> (...)\n  ktdf.stage depends_out(%a#1) {x = #map}\n"
    )


# y = x * f + 2 on 2 x 128 f32: a scalar parameter splat and a splat constant.
SCALED = """
#all = affine_set<(d0, d1) : (d0 >= 0, -d0 + 1 >= 0, d1 >= 0, -d1 + 127 >= 0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @scale(%x: index, %y: index, %f: f32) {
  %c0 = arith.constant 0 : index
  %xv = ktdp.construct_memory_view %x, sizes: [2, 128], strides: [128, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<2x128xf32>
  %yv = ktdp.construct_memory_view %y, sizes: [2, 128], strides: [128, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<2x128xf32>
  %xt = ktdp.construct_access_tile %xv[%c0, %c0] {access_tile_set = #all, access_tile_order = #id2} : memref<2x128xf32> -> !ktdp.access_tile<2x128xindex>
  %yt = ktdp.construct_access_tile %yv[%c0, %c0] {access_tile_set = #all, access_tile_order = #id2} : memref<2x128xf32> -> !ktdp.access_tile<2x128xindex>
  %a = ktdp.load %xt : !ktdp.access_tile<2x128xindex> -> tensor<2x128xf32>
  %s = tensor.splat %f : tensor<2x128xf32>
  %two = arith.constant dense<2.0> : tensor<2x128xf32>
  %m = arith.mulf %a, %s : tensor<2x128xf32>
  %r = arith.addf %m, %two : tensor<2x128xf32>
  ktdp.store %r, %yt : tensor<2x128xf32>, !ktdp.access_tile<2x128xindex>
  return
}
"""


def test_splats_fold_into_the_generic_and_the_tile_moves_in_chunks_of_one_vector():
    """A splat of a scalar and a splat constant are scalars in the fused body (as MLIR's fusion folds
    them); the 2 x 128 f32 tile moves in chunks of 32 (one 128-byte SIMD vector): 2 x 4 trips."""
    module = _built(SCALED, PASS)
    (generic,) = [op for op in module.walk() if op.name == "linalg.generic"]
    assert len(generic.inputs) == 1
    assert [op.name for op in generic.body.block.ops] == ["arith.constant", "arith.mulf", "arith.addf", "linalg.yield"]
    (transfer, _) = _of(module, ktdf.DataTransferOp)
    assert "size [1, 32]" in print_ir(transfer)
    loops = [op for op in module.walk() if op.name == "scf.for"]
    assert [(op.ub.owner.value.value.data, op.step.owner.value.value.data) for op in loops] == [(2, 1), (128, 32)]
    x = np.random.default_rng(0).standard_normal((2, 128)).astype(np.float32)

    def run(m):
        return np.asarray(spyre_mlir.interpret(m, "scale", x=x.copy(), y=np.zeros((2, 128), np.float32), f=3.0)["y"])

    np.testing.assert_array_equal(run(module), run(spyre_mlir.parse(SCALED)))
    np.testing.assert_allclose(run(module), x * 3 + 2, rtol=1e-6)


@pytest.mark.parametrize("path", corpus_params())
def test_every_corpus_kernel_has_every_access_in_a_pipeline(path):
    """ktir-to-schedule on each corpus kernel: every ktdp.load and ktdp.store ends in a ktdf.pipeline
    (layernorm_fwd_ktir: its reduction loops' accumulators, and the mean made between its loops, through
    LX; the splat of a constant its first and third runs share stays where it is)."""
    module = spyre_mlir.parse(path)
    spyre_mlir.PassManager.from_pipeline("ktir-to-schedule").run(module)
    outside = []
    for op in module.walk():
        if op.name in ("ktdp.load", "ktdp.store"):
            parent = op.parent_op()
            while parent is not None and not isinstance(parent, ktdf.PipelineOp):
                parent = parent.parent_op()
            if parent is None:
                outside.append(op.name)
    assert not outside and _of(module, ktdf.PipelineOp)


# 4 cores x 16 rows of a 53-row view: the last core's tile runs 11 rows past the view, which masks them.
OVERRUN = """
#all = affine_set<(d0, d1) : (d0 >= 0, -d0 + 52 >= 0, d1 >= 0, -d1 + 47 >= 0)>
#tile = affine_set<(d0, d1) : (d0 >= 0, -d0 + 15 >= 0, d1 >= 0, -d1 + 47 >= 0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @overrun(%x: index, %out: index) attributes {grid = [4]} {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %pid = ktdp.get_compute_tile_id : index
  %row = arith.muli %pid, %c16 : index
  %xv = ktdp.construct_memory_view %x, sizes: [53, 48], strides: [48, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<53x48xf32>
  %ov = ktdp.construct_memory_view %out, sizes: [53, 48], strides: [48, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<53x48xf32>
  %xt = ktdp.construct_access_tile %xv[%row, %c0] {access_tile_set = #tile, access_tile_order = #id2} : memref<53x48xf32> -> !ktdp.access_tile<16x48xindex>
  %ot = ktdp.construct_access_tile %ov[%row, %c0] {access_tile_set = #tile, access_tile_order = #id2} : memref<53x48xf32> -> !ktdp.access_tile<16x48xindex>
  %a = ktdp.load %xt : !ktdp.access_tile<16x48xindex> -> tensor<16x48xf32>
  %e = math.exp %a : tensor<16x48xf32>
  ktdp.store %e, %ot : tensor<16x48xf32>, !ktdp.access_tile<16x48xindex>
  return
}
"""


@pytest.mark.parametrize("grid", ["[4]", "[2, 2]"])  # [2, 2]: one tile id, the linear one (0..3)
@pytest.mark.parametrize("passes", [PASS, f"{EXTRACT},{PASS}"])
def test_a_tile_that_may_leave_its_view_is_moved_on_the_view(passes, grid):
    """Rows 48..63 of the last core pass the view's 53 rows: no reinterpret_cast (it would address them);
    the transfers stay on the view (whose coordinate set masks them), at the anchor plus the chunk."""
    kernel = OVERRUN.replace("grid = [4]", f"grid = {grid}")
    module = _built(kernel, passes)
    assert not [op for op in module.walk() if op.name == "memref.reinterpret_cast"]
    transfers = _of(module, ktdf.DataTransferOp)
    assert len(transfers) == 2 and all("memref<53x48xf32>" in print_ir(t) for t in transfers)
    x = np.random.default_rng(0).standard_normal((53, 48)).astype(np.float32)

    def run(m):
        return np.asarray(spyre_mlir.interpret(m, "overrun", x=x.copy(), out=np.zeros((53, 48), np.float32))["out"])

    np.testing.assert_array_equal(run(module), run(spyre_mlir.parse(kernel)))
    np.testing.assert_allclose(run(module), np.exp(x), rtol=1e-6)

"""The cost model (interpreter/cost_model.py, docs/cost-model.md): per-op formulas,
the sequential figure against hand counts and ktir-cpu's published figures,
batched = per-core, divergence counted as executed, the pipelined recurrence,
the Chrome trace, and spyre-run's --estimate / --estimate-json / --trace / --hw."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from conftest import CORPUS, kernel_arguments
from xdsl.dialects.builtin import IntegerAttr, i64

import spyre_mlir
from spyre_mlir.interpreter import CostEstimate, HardwareConfig, Interpreter, InterpreterOptions
from spyre_mlir.interpreter.cost import (
    StageRun,
    fifo_depth_of,
    simulate_core,
    simulate_records,
    stick_bytes,
)
from spyre_mlir.interpreter.runtime import StageRecord


def estimate_of(text_or_path, func=None, args=None, hbm=None, grid=None, execution="auto", config=None) -> CostEstimate:
    options = InterpreterOptions(cost_model=config or True, execution=execution)
    module = spyre_mlir.parse(text_or_path)
    result = Interpreter(module, options).run(func, args or {}, hbm, grid=grid)
    assert result.report.estimate is not None
    return result.report.estimate


def per_op(estimate: CostEstimate, core: int = 0) -> dict[str, tuple[int, float]]:
    return {o["op"]: (o["count"], o["cycles"]) for o in estimate.ops(core)}


# ---------------------------------------------------------------------------
# The hardware config
# ---------------------------------------------------------------------------


def test_defaults_are_ktir_cpus():
    """ktir_cpu/latency.py HardwareConfig: 0.128 TB/s HBM for the chip, 0.064 TB/s
    ring, 64 SIMD elements, 8 systolic rows, transcendental x4, 1 GHz."""
    hw = HardwareConfig()
    assert hw.clock_ghz == 1.0
    assert hw.hbm_bytes_per_cycle == pytest.approx(128.0)
    assert hw.hbm_bytes_per_cycle_per_core(32) == pytest.approx(4.0)  # contended: shared by the grid's cores
    assert hw.hbm_bytes_per_cycle_per_core(1) == pytest.approx(128.0)
    assert hw.ring_bytes_per_cycle == pytest.approx(64.0)
    assert hw.systolic_flops_per_cycle == 2 * 64 * 8 == 1024
    assert hw.transcendental_penalty == 4
    assert hw.microseconds(1000) == pytest.approx(1.0)
    # docs/latency.md's older parametrization: 1 TB/s over a fixed 32 cores = 31.25 B/cycle
    old = hw.replace(hbm_bandwidth_tb_s=1.0, hbm_sharing_cores=32)
    assert old.hbm_bytes_per_cycle_per_core(1) == pytest.approx(31.25)


def test_config_overrides_and_json(tmp_path):
    hw = HardwareConfig().with_overrides(["simd_elements_per_cycle=128", "transcendental_penalty=2.5", "comm_bytes=received"])
    assert (hw.simd_elements_per_cycle, hw.transcendental_penalty, hw.comm_bytes) == (128, 2.5, "received")
    assert HardwareConfig.from_json({"systolic_rows": 16}).systolic_flops_per_cycle == 2048
    path = tmp_path / "hw.json"
    path.write_text(json.dumps({"hbm_bandwidth_tb_s": 1.0}))
    from_file = HardwareConfig.from_json(path, base=hw)
    assert from_file.hbm_bandwidth_tb_s == 1.0 and from_file.simd_elements_per_cycle == 128  # the rest kept
    assert HardwareConfig.from_json(json.dumps(hw.to_json())) == hw
    with pytest.raises(ValueError, match="unknown hardware parameter 'bogus'"):
        HardwareConfig().with_overrides(["bogus=1"])
    with pytest.raises(ValueError, match="must be positive"):
        HardwareConfig(simd_elements_per_cycle=0)
    with pytest.raises(ValueError, match="integer"):
        HardwareConfig().with_overrides(["fifo_depth=1.5"])
    with pytest.raises(ValueError, match="comm_bytes"):
        HardwareConfig(comm_bytes="wires")
    with pytest.raises(ValueError, match="KEY=VALUE"):
        HardwareConfig().with_overrides(["simd"])
    with pytest.raises(TypeError, match="cost_model"):
        InterpreterOptions(cost_model="yes")


def test_every_op_the_interpreter_executes_is_priced_or_free():
    """No op silently costs 0 because nobody priced it (ktir-cpu's kernelentry/pricing.py audit)."""
    from xdsl.dialects.linalg.abstract_ops import LinalgStructuredOperation
    from xdsl.dialects.linalg.ops import ReduceOp

    from spyre_mlir.interpreter import cost
    from spyre_mlir.interpreter.core import HANDLERS

    priced = {"ktdp.load", "ktdp.store", "ktdf.data_transfer", "ktdp.inter_tile_reduce", "ktdp.inter_tile_consume",
              "spyre.relayout", "arith.select", "memref.copy"}
    priced |= cost.FLOAT_ELEMENTWISE | cost.INT_ELEMENTWISE | cost.TRANSCENDENTAL | cost.CASTS | set(cost.FREE)
    missing = [
        cls.name
        for cls in HANDLERS
        if hasattr(cls, "name")
        and not (cls is ReduceOp or issubclass(cls, LinalgStructuredOperation))
        and cls.name not in priced
        and not cls.name.startswith(cost.FREE_DIALECTS)
    ]
    assert missing == []


def test_stick_rounding():
    assert stick_bytes((4, 64), 2, 128) == 512  # four rows of one stick each
    assert stick_bytes((1, 4), 2, 128) == 128  # a partial stick costs a stick
    assert stick_bytes((3, 100), 2, 128) == 3 * 256
    assert stick_bytes((), 4, 128) == 128  # a scalar
    assert stick_bytes((1, 4), 2, 0) == 8  # raw bytes


# ---------------------------------------------------------------------------
# Per-op formulas
# ---------------------------------------------------------------------------

OPS = """
#set4x64 = affine_set<(d0, d1) : (d0 >= 0, -d0 + 3 >= 0, d1 >= 0, -d1 + 63 >= 0)>
#set1x4 = affine_set<(d0, d1) : (d0 == 0, d1 >= 0, -d1 + 3 >= 0)>
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @ops(%x: index, %y: index, %n: index) attributes {grid = [1]} {
  %c0 = arith.constant 0 : index
  %xv = ktdp.construct_memory_view %x, sizes: [4, 64], strides: [64, 1] {coordinate_set = #set4x64, memory_space = #ktdp.memory_space<global>} : memref<4x64xf16>
  %yv = ktdp.construct_memory_view %y, sizes: [4, 64], strides: [64, 1] {coordinate_set = #set4x64, memory_space = #ktdp.memory_space<global>} : memref<4x64xf16>
  %lv = ktdp.construct_memory_view %c0, sizes: [4, 64], strides: [64, 1] {coordinate_set = #set4x64, memory_space = #ktdp.memory_space<ct_local>} : memref<4x64xf16>
  %xt = ktdp.construct_access_tile %xv[%c0, %c0] {access_tile_set = #set4x64, access_tile_order = #id} : memref<4x64xf16> -> !ktdp.access_tile<4x64xindex>
  %small = ktdp.construct_access_tile %yv[%c0, %c0] {access_tile_set = #set1x4, access_tile_order = #id} : memref<4x64xf16> -> !ktdp.access_tile<1x4xindex>
  %lt = ktdp.construct_access_tile %lv[%c0, %c0] {access_tile_set = #set4x64, access_tile_order = #id} : memref<4x64xf16> -> !ktdp.access_tile<4x64xindex>
  %a = ktdp.load %xt : !ktdp.access_tile<4x64xindex> -> tensor<4x64xf16>
  ktdp.store %a, %lt : tensor<4x64xf16>, !ktdp.access_tile<4x64xindex>
  %a2 = ktdp.load %lt : !ktdp.access_tile<4x64xindex> -> tensor<4x64xf16>
  %b = arith.addf %a, %a2 : tensor<4x64xf16>
  %e = math.exp %b : tensor<4x64xf16>
  %i = arith.addi %n, %n : index
  %n32 = arith.index_cast %i : index to i32
  %it = tensor.splat %n32 : tensor<128xi32>
  %ia = arith.addi %it, %it : tensor<128xi32>
  %one = arith.constant 1.0 : f16
  %sq = arith.mulf %one, %one : f16
  %init = tensor.splat %sq : tensor<4xf16>
  %r = linalg.reduce { arith.addf } ins(%e : tensor<4x64xf16>) outs(%init : tensor<4xf16>) dimensions = [1]
  %w = tensor.splat %one : tensor<64x32xf16>
  %acc = tensor.splat %one : tensor<4x32xf16>
  %m = linalg.matmul ins(%e, %w : tensor<4x64xf16>, tensor<64x32xf16>) outs(%acc : tensor<4x32xf16>) -> tensor<4x32xf16>
  %piece = tensor.extract_slice %m[0, 0] [1, 4] [1, 1] : tensor<4x32xf16> to tensor<1x4xf16>
  ktdp.store %piece, %small : tensor<1x4xf16>, !ktdp.access_tile<1x4xindex>
  return
}
"""


def run_ops(config: HardwareConfig | None = None) -> CostEstimate:
    x = np.ones((4, 64), np.float16)
    return estimate_of(OPS, args=dict(x=x, y=np.zeros_like(x), n=3), config=config)


def test_per_op_formulas():
    """One core: HBM at 128 B/cycle, SIMD 64 elements/cycle, systolic 1024 flops/cycle."""
    ops = per_op(run_ops())
    assert ops["ktdp.load"] == (1, 512 / 128)  # 4 rows x 1 stick from HBM; the LX load is free
    assert ops["ktdp.store"] == (1, 128 / 128)  # a 1x4 f16 tile is one stick; the LX store is free
    assert ops["arith.addf"] == (1, 256 / 64)
    assert ops["math.exp"] == (1, 256 / 64 * 4)  # transcendental x4
    assert ops["arith.addi"] == (1, 128 / 64)  # the tensor one; the scalar (index) one is free
    assert ops["arith.mulf"] == (1, 1 / 64)  # a scalar float op: one element
    assert ops["linalg.reduce"] == (1, 256 / 64)  # one pass over its input per body op
    assert ops["linalg.matmul"] == (1, 2 * 4 * 32 * 64 / 1024)  # 2·M·N·K / systolic flops per cycle
    for free in ("ktdp.construct_memory_view", "ktdp.construct_access_tile", "tensor.splat", "arith.index_cast",
                 "tensor.extract_slice", "arith.constant"):
        assert free not in ops


def test_per_op_formulas_follow_the_config():
    hw = HardwareConfig(simd_elements_per_cycle=32, transcendental_penalty=8, systolic_rows=4, stick_bytes=0,
                        hbm_bandwidth_tb_s=0.256)
    ops = per_op(run_ops(hw))
    assert ops["ktdp.load"] == (1, 512 / 256)
    assert ops["ktdp.store"] == (1, 8 / 256)  # raw bytes when sticks are off
    assert ops["arith.addf"] == (1, 256 / 32)
    assert ops["math.exp"] == (1, 256 / 32 * 8)
    assert ops["linalg.matmul"] == (1, 2 * 4 * 32 * 64 / (2 * 32 * 4))


def test_inter_tile_delivery_is_charged_its_ring_bytes():
    """allreduce over 4 cores of a 1x64 f32 partial: ring (4 - 1) x 256 bytes / 64 B/cycle
    = 12 cycles per core; the combiner runs 3 times per core (1 cycle each); load and
    store are 256 B = 2 sticks at 128/4 = 32 B/cycle = 8 cycles each."""
    path = Path(__file__).parent / "kernels" / "inter_tile" / "allreduce_one_group.mlir"
    x = np.arange(256, dtype=np.float32).reshape(4, 64)
    est = estimate_of(path, "allreduce_one_group", dict(x=x, out=np.zeros_like(x)))
    assert est.communication.tolist() == [12.0] * 4
    assert est.compute.tolist() == [3.0] * 4
    assert est.memory.tolist() == [16.0] * 4
    assert per_op(est)["ktdp.inter_tile_reduce"] == (1, 12.0)
    assert all(per_op(est, c)["arith.addf"] == (3, 3.0) for c in range(4))  # the combiner, on every consumer
    received = estimate_of(path, "allreduce_one_group", dict(x=x, out=np.zeros_like(x)),
                           config=HardwareConfig(comm_bytes="received"))
    assert received.communication.tolist() == [3 * 256 / 64] * 4  # logical: 3 other partials each


def test_indirect_access_is_charged_its_index_reads():
    """tiles.mlir @indirect, 2 cores (HBM 128 / 2 = 64 B/cycle): a 3x4 f32 gather through an
    i32 index view: data 3 rows of 16 B = 3 sticks (384 B), indices 12 x 4 B = 48 B = 1 stick:
    512 B = 8 cycles; the same for the scatter; the plain store of 1x3x4 f32 is 3 sticks = 6."""
    path = Path(__file__).parent / "kernels" / "tiles.mlir"
    idx = np.array([[3, 7, 1], [15, 0, 7]], np.int32)
    f32 = np.float32
    est = estimate_of(path, "indirect", dict(src=np.ones((16, 8), f32), idx=idx, dst=np.zeros((16, 8), f32),
                                              out=np.zeros((2, 3, 4), f32)))
    ops = per_op(est, 1)
    assert ops["ktdp.load"] == (1, 8.0)
    assert ops["ktdp.store"] == (2, 6.0 + 8.0)
    assert ops["arith.addf"] == (1, 12 / 64)


@pytest.mark.parametrize("func", ["allreduce_contiguous", "allreduce_strided"])
def test_inter_tile_groups(func):
    """16 cores in 4 groups of 4, a 1x32 f32 partial (128 B): the ring charge is ktir-cpu's,
    (16 - 1) x 128 B / 64 B/cycle = 30 cycles, whatever the groups; the combiner (addf on 32
    elements, 0.5 cycle) runs group size - 1 = 3 times per core, as ktir-cpu's per-core ring
    folds do; load and store: one stick at 128/16 = 8 B/cycle = 16 cycles each."""
    path = Path(__file__).parent / "kernels" / "inter_tile" / "allreduce_groups.mlir"
    x = np.arange(16 * 32, dtype=np.float32).reshape(16, 32)
    est = estimate_of(path, func, dict(x=x, out=np.zeros_like(x)))
    assert est.communication.tolist() == [30.0] * 16
    assert est.compute.tolist() == [1.5] * 16
    assert est.memory.tolist() == [32.0] * 16


def test_vector_add_of_ktir_cpus_latency_doc_under_its_older_defaults():
    """ktir-cpu docs/latency.md, "Example: sanity-checking vector_add": 1 core,
    1024 f16, HBM 1 TB/s over 32 cores (31.25 B/cycle), raw bytes:
    2 x 2048 / 31.25 + 2048 / 31.25 + 1024 / 64 = 196.6 + 16 = 212.6 cycles."""
    text = """
    func.func @add(%x: index, %y: index, %o: index) {
      %c0 = arith.constant 0 : index
      %xv = ktdp.construct_memory_view %x, sizes: [1024], strides: [1] {coordinate_set = affine_set<(d0) : (d0 >= 0, -d0 + 1023 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<1024xf16>
      %yv = ktdp.construct_memory_view %y, sizes: [1024], strides: [1] {coordinate_set = affine_set<(d0) : (d0 >= 0, -d0 + 1023 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<1024xf16>
      %ov = ktdp.construct_memory_view %o, sizes: [1024], strides: [1] {coordinate_set = affine_set<(d0) : (d0 >= 0, -d0 + 1023 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<1024xf16>
      %xt = ktdp.construct_access_tile %xv[%c0] {access_tile_set = affine_set<(d0) : (d0 >= 0, -d0 + 1023 >= 0)>, access_tile_order = affine_map<(d0) -> (d0)>} : memref<1024xf16> -> !ktdp.access_tile<1024xindex>
      %yt = ktdp.construct_access_tile %yv[%c0] {access_tile_set = affine_set<(d0) : (d0 >= 0, -d0 + 1023 >= 0)>, access_tile_order = affine_map<(d0) -> (d0)>} : memref<1024xf16> -> !ktdp.access_tile<1024xindex>
      %ot = ktdp.construct_access_tile %ov[%c0] {access_tile_set = affine_set<(d0) : (d0 >= 0, -d0 + 1023 >= 0)>, access_tile_order = affine_map<(d0) -> (d0)>} : memref<1024xf16> -> !ktdp.access_tile<1024xindex>
      %a = ktdp.load %xt : !ktdp.access_tile<1024xindex> -> tensor<1024xf16>
      %b = ktdp.load %yt : !ktdp.access_tile<1024xindex> -> tensor<1024xf16>
      %s = arith.addf %a, %b : tensor<1024xf16>
      ktdp.store %s, %ot : tensor<1024xf16>, !ktdp.access_tile<1024xindex>
      return
    }
    """
    x = np.ones(1024, np.float16)
    old = HardwareConfig(hbm_bandwidth_tb_s=1.0, hbm_sharing_cores=32, stick_bytes=0)
    est = estimate_of(text, args=dict(x=x, y=x, o=np.zeros_like(x)), config=old)
    assert est.sequential_cycles == pytest.approx(212.608)
    assert est.memory[0] == pytest.approx(196.608) and est.compute[0] == 16
    assert est.bottleneck == {"component": "memory", "core": 0, "cycles": pytest.approx(196.608)}


# ---------------------------------------------------------------------------
# Corpus kernels: hand counts, ktir-cpu's figures, batched = per core
# ---------------------------------------------------------------------------


def corpus_estimate(stem: str, execution: str = "auto") -> CostEstimate:
    path = CORPUS / f"{stem}.mlir"
    if not path.is_file():
        pytest.skip(f"{path} not present")
    name, args, hbm = kernel_arguments(path)
    grid = args.pop("grid", None)
    return estimate_of(path, name, args, hbm, grid=grid, execution=execution)


def test_vector_add_ktir_sequential_figure_by_hand():
    """vector_add_ktir: 32 cores, BLOCK_SIZE = 128 f16 per core.
    HBM per core: 128 B/cycle / 32 cores = 4 B/cycle.
      2 loads  x 128 x 2 B = 2 x 256 B (2 sticks each) / 4 B/cycle = 128 cycles
      1 store  x 256 B                                 / 4 B/cycle =  64 cycles
      1 addf   x 128 elements / 64 elements/cycle                  =   2 cycles
      1 muli on an index (the offset): scalar index arithmetic      =   0
    total 194 cycles on every core, bottleneck memory (192).
    ktir-cpu's docs/kernel_cost.md ("vector_add_ktir"): kernel_cycles = 194,
    compute 2, memory 192."""
    est = corpus_estimate("vector_add_ktir")
    assert est.cores == 32
    assert est.sequential_cycles == 194
    assert est.totals.tolist() == [194.0] * 32
    assert est.compute[0] == 2 and est.memory[0] == 192 and est.communication[0] == 0
    assert est.bottleneck == {"component": "memory", "core": 0, "cycles": 192.0}
    assert per_op(est) == {"ktdp.load": (2, 128.0), "ktdp.store": (1, 64.0), "arith.addf": (1, 2.0)}
    assert est.pipelined_cycles is None  # no schedule IR


def test_softmax_small_sequential_figure_by_hand():
    """softmax_small: 64 rows of 64 f16 over 32 cores, so 2 rows (loop iterations) per core.
    Per row: load 128 B (1 stick) / 4 B/cycle = 32, store 32;
    reduce max 64/64 = 1, subf 1, exp 64/64 x 4 = 4, reduce add 1, divf 1 (= 8 compute).
    Per core: 2 x (64 + 8) = 144 cycles (memory 128, compute 16): ktir-cpu's
    docs/kernel_cost.md "softmax_small" says kernel_cycles = 144, compute 16, memory 128."""
    est = corpus_estimate("softmax_small")
    assert est.sequential_cycles == 144
    assert est.memory.tolist() == [128.0] * 32 and est.compute.tolist() == [16.0] * 32
    assert per_op(est)["math.exp"] == (2, 8.0)


@pytest.mark.parametrize(
    "stem, cycles",
    [  # ktir-cpu docs/kernel_cost.md, kernel_cycles at the same parameters
        ("softmax_fwd_ktir", 147_456),
        ("matmul_fwd_ktir", 634_880),
        ("reduce_generic", 2.0625),
        ("scalar_broadcast", 5),
    ],
)
def test_corpus_figures_agree_with_ktir_cpu(stem, cycles):
    assert corpus_estimate(stem).sequential_cycles == pytest.approx(cycles)


@pytest.mark.parametrize("stem", ["vector_add_ktir", "softmax_small", "add-with-control-flow", "matmul_fwd_ktir"])
def test_batched_equals_per_core(stem):
    batched = corpus_estimate(stem, "batched")
    per_core = corpus_estimate(stem, "per-core")
    for component in ("compute", "memory", "communication"):
        assert np.array_equal(getattr(batched, component), getattr(per_core, component)), component
    assert np.array_equal(batched.kind_counts, per_core.kind_counts)


# ---------------------------------------------------------------------------
# Divergent control flow counts as executed
# ---------------------------------------------------------------------------

DIVERGENT = """
#row = affine_set<(d0, d1) : (d0 == 0, d1 >= 0, -d1 + 63 >= 0)>
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @divergent(%x: index, %n: index) attributes {grid = [4]} {
  %id = ktdp.get_compute_tile_id : index
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %xv = ktdp.construct_memory_view %x, sizes: [8, 64], strides: [64, 1] {coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 7 >= 0, d1 >= 0, -d1 + 63 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<8x64xf16>
  scf.for %r = %id to %n step %c4 {
    %t = ktdp.construct_access_tile %xv[%r, %c0] {access_tile_set = #row, access_tile_order = #id} : memref<8x64xf16> -> !ktdp.access_tile<1x64xindex>
    %v = ktdp.load %t : !ktdp.access_tile<1x64xindex> -> tensor<1x64xf16>
    %e = math.exp %v : tensor<1x64xf16>
    ktdp.store %e, %t : tensor<1x64xf16>, !ktdp.access_tile<1x64xindex>
  }
  %odd = arith.remui %id, %c2 : index
  %even = arith.cmpi eq, %odd, %c0 : index
  scf.if %even {
    %t0 = ktdp.construct_access_tile %xv[%c0, %c0] {access_tile_set = #row, access_tile_order = #id} : memref<8x64xf16> -> !ktdp.access_tile<1x64xindex>
    %w = ktdp.load %t0 : !ktdp.access_tile<1x64xindex> -> tensor<1x64xf16>
  }
  return
}
"""


@pytest.mark.parametrize("execution", ["batched", "per-core"])
def test_divergent_loops_and_branches_count_as_executed(execution):
    """n = 6 rows, step 4: cores 0 and 1 run 2 iterations, cores 2 and 3 one.
    An iteration: load 128 B / (128/4 B/cycle) = 4, exp 64/64 x 4 = 4, store 4:
    12 cycles. The even cores (0, 2) also take the branch: one more load, 4 cycles.
    Core 0: 2 x 12 + 4 = 28; core 1: 24; core 2: 12 + 4 = 16; core 3: 12."""
    x = np.zeros((8, 64), np.float16)
    est = estimate_of(DIVERGENT, args=dict(x=x, n=6), execution=execution)
    assert est.totals.tolist() == [28.0, 24.0, 16.0, 12.0]
    assert est.compute.tolist() == [8.0, 8.0, 4.0, 4.0]
    assert est.sequential_cycles == 28 and est.critical_core == 0
    assert per_op(est, 3)["ktdp.load"] == (1, 4.0)
    assert per_op(est, 0)["ktdp.load"] == (3, 12.0)


# ---------------------------------------------------------------------------
# The pipelined recurrence
# ---------------------------------------------------------------------------


def records(times: list[list[float]], pipeline="p", lanes=(0,)) -> list[StageRecord]:
    """StageRecords of one pipeline: times[i][k] = cycles of stage k of instance i, on every lane."""
    out = []
    for i, row in enumerate(times):
        for k, t in enumerate(row):
            rec = StageRecord(pipeline, i, k, f"stage{k}", np.array(lanes))
            rec.cycles = np.full(len(lanes), float(t))
            out.append(rec)
    return out


@pytest.mark.parametrize("load, compute, store", [(3, 7, 2), (10, 1, 1), (1, 1, 10), (5, 5, 5)])
@pytest.mark.parametrize("n", [1, 2, 6])
def test_uniform_three_stage_pipeline(load, compute, store, n):
    """With FIFO depth 1, N instances of stages L, C, S take L + C + S + (N - 1) x max(L, C, S)."""
    got = simulate_records(records([[load, compute, store]] * n), depth=1)
    assert got.tolist() == [load + compute + store + (n - 1) * max(load, compute, store)]
    # sequentially they would take N x (L + C + S)
    assert sum((load + compute + store) for _ in range(n)) >= got[0]


def test_fifo_depth_limits_how_far_a_stage_runs_ahead():
    """Two stages; load times 1, 1, 1, 30 and compute times 10, 10, 10, 1.
    Depth 1: load #3 waits for compute #1 to end (t = 21), ends at 51; compute #3 ends at 52.
    Depth 2: load #3 waits for compute #0 (t = 11), ends at 41; compute #3 ends at 42.
    Unbounded: load #3 starts at 3, ends at 33; compute #3 ends at 34."""
    times = [[1, 10], [1, 10], [1, 10], [30, 1]]
    assert simulate_records(records(times), depth=1).tolist() == [52.0]
    assert simulate_records(records(times), depth=2).tolist() == [42.0]
    assert simulate_records(records(times), depth=100).tolist() == [34.0]


def test_pipeline_depth_from_the_ir():
    class FakePipeline:
        attributes = {"depth": IntegerAttr(2, i64)}
        properties: dict = {}

    pipeline = FakePipeline()
    assert fifo_depth_of(pipeline, 1) == 2
    times = [[1, 10], [1, 10], [1, 10], [30, 1]]
    assert simulate_records(records(times, pipeline=pipeline), depth=1).tolist() == [42.0]


def test_work_outside_pipelines_is_sequential_and_runs_do_not_overlap():
    """Core 0: 5 cycles of other work, pipeline p (2 instances of [2, 4]), 3 cycles,
    pipeline q (1 instance of [6]), then 1 cycle: 5 + (2 + 4 + 4) + 3 + 6 + 1 = 25."""
    runs = [
        StageRun("p", 0, 0, 2, start=5),
        StageRun("p", 0, 1, 4, start=7),
        StageRun("p", 1, 0, 2, start=11),
        StageRun("p", 1, 1, 4, start=13),
        StageRun("q", 0, 0, 6, start=20),
    ]
    total, spans = simulate_core(runs, total=27)
    assert total == 25
    outside = [(s.start, s.end) for s in spans if s.tid == 0]
    assert outside == [(0, 5), (15, 18), (24, 25)]
    # a stage's engine never runs two things at once
    for tid in {s.tid for s in spans}:
        mine = sorted((s.start, s.end) for s in spans if s.tid == tid)
        assert all(a[1] <= b[0] for a, b in zip(mine, mine[1:]))


def test_pipeline_per_core_lanes():
    """One record per stage for two cores with different stage times."""
    recs = []
    for i in range(3):
        for k, (t0, t1) in enumerate([(2, 4), (6, 1)]):
            rec = StageRecord("p", i, k, None, np.array([0, 1]))
            rec.cycles = np.array([t0, t1], float)
            recs.append(rec)
    # core 0: stages 2, 6 -> 8 + 2 x 6 = 20; core 1: stages 4, 1 -> 5 + 2 x 4 = 13
    assert simulate_records(recs).tolist() == [20.0, 13.0]


# ---------------------------------------------------------------------------
# The trace
# ---------------------------------------------------------------------------


def check_trace(trace: dict, clock_ghz: float = 1.0) -> list[dict]:
    assert set(trace) >= {"traceEvents"}
    json.loads(json.dumps(trace))  # plain JSON
    spans = []
    named = set()
    for event in trace["traceEvents"]:
        assert event["ph"] in ("X", "M")
        assert isinstance(event["pid"], int) and isinstance(event["tid"], int)
        if event["ph"] == "M":
            assert event["name"] in ("process_name", "thread_name", "process_sort_index", "thread_sort_index")
            if event["name"] == "thread_name":
                named.add((event["pid"], event["tid"]))
            continue
        assert set(event) >= {"name", "ph", "ts", "dur", "pid", "tid", "args"}
        assert event["dur"] >= 0 and event["ts"] >= 0
        assert (event["pid"], event["tid"]) in named  # every thread has a name
        spans.append(event)
    for key in {(e["pid"], e["tid"]) for e in spans}:
        mine = sorted((e["ts"], e["ts"] + e["dur"]) for e in spans if (e["pid"], e["tid"]) == key)
        assert all(a[1] <= b[0] + 1e-9 for a, b in zip(mine, mine[1:])), key
    return spans


def test_sequential_trace_of_a_kernel_without_schedule_ir():
    x = np.zeros((8, 64), np.float16)
    est = estimate_of(DIVERGENT, args=dict(x=x, n=6))
    spans = check_trace(est.trace())
    assert {e["pid"] for e in spans} == {0, 1, 2, 3}
    for core in range(4):
        mine = [e for e in spans if e["pid"] == core]
        end = max(e["ts"] + e["dur"] for e in mine)
        assert end == pytest.approx(est.totals[core] / 1000)  # microseconds at 1 GHz
        assert sum(e["args"]["executions"] for e in mine) == int(est.kind_counts[:, core].sum())
    # consecutive executions of one op are merged: core 0 runs load, exp, store twice, then a load
    names = [e["name"] for e in sorted((e for e in spans if e["pid"] == 0), key=lambda e: e["ts"])]
    assert names == ["ktdp.load", "math.exp", "ktdp.store", "ktdp.load", "math.exp", "ktdp.store", "ktdp.load"]


def test_trace_of_the_pipelined_schedule():
    from spyre_mlir.interpreter.cost import CostEstimate, pipelined_per_core

    recs = records([[3, 7, 2]] * 4, lanes=(0, 1))
    totals = np.array([48.0, 48.0])
    pipelined, timelines = pipelined_per_core([(r, None, 0) for r in recs], totals)
    est = CostEstimate(HardwareConfig(clock_ghz=2.0), (2,), np.zeros(2), totals, np.zeros(2), pipelined,
                       timelines=timelines)
    assert est.pipelined_cycles == 12 + 3 * 7
    spans = check_trace(est.trace())
    assert {e["tid"] for e in spans} == {1, 2, 3}  # one engine per stage index
    assert max(e["ts"] + e["dur"] for e in spans) == pytest.approx(33 / 2000)  # 33 cycles at 2 GHz


# ---------------------------------------------------------------------------
# Schedule IR end to end (the ktdf dialect)
# ---------------------------------------------------------------------------

KTDF = """
#row = affine_map<(d0, d1) -> (d0, d1)>
func.func @add_rows(%a: index, %b: index, %c: index) attributes {grid = [4]} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %id = ktdp.get_compute_tile_id : index
  %start_row = arith.muli %id, %c2 : index
  %A = ktdp.construct_memory_view %a, sizes: [8, 64], strides: [64, 1] {coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 7 >= 0, d1 >= 0, -d1 + 63 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<8x64xf16>
  %B = ktdp.construct_memory_view %b, sizes: [8, 64], strides: [64, 1] {coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 7 >= 0, d1 >= 0, -d1 + 63 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<8x64xf16>
  %C = ktdp.construct_memory_view %c, sizes: [8, 64], strides: [64, 1] {coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 7 >= 0, d1 >= 0, -d1 + 63 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<8x64xf16>
  scf.for %i = %c0 to %c2 step %c1 {
    ktdf.pipeline {
      %p:6 = ktdf.private -> (!ktdf.fifo.slot<"DDR" -> "SFU", 64xf16>, !ktdf.fifo.slot<"DDR" -> "SFU", 64xf16>, !ktdf.fifo.slot<"SFU" -> "DDR", 64xf16>, !ktdf.token, !ktdf.token, !ktdf.token) {
        %in:2 = ktdf.fifo.allocate() -> !ktdf.fifo.slot<"DDR" -> "SFU", 64xf16>, !ktdf.fifo.slot<"DDR" -> "SFU", 64xf16>
        %out = ktdf.fifo.allocate() -> !ktdf.fifo.slot<"SFU" -> "DDR", 64xf16>
        %t0 = ktdf.create_token : !ktdf.token
        %t1 = ktdf.create_token : !ktdf.token
        %t2 = ktdf.create_token : !ktdf.token
        ktdf.private_yield %in#0, %in#1, %out, %t0, %t1, %t2 : !ktdf.fifo.slot<"DDR" -> "SFU", 64xf16>, !ktdf.fifo.slot<"DDR" -> "SFU", 64xf16>, !ktdf.fifo.slot<"SFU" -> "DDR", 64xf16>, !ktdf.token, !ktdf.token, !ktdf.token
      }
      ktdf.stage depends_in(none) depends_out(%p#3) {
        ktdf.data_transfer from %A[%start_row + %i, %c0] size [1, 64] to %p#0 size [1, 64] : memref<8x64xf16>, !ktdf.fifo.slot<"DDR" -> "SFU", 64xf16>
        ktdf.data_transfer from %B[%start_row + %i, %c0] size [1, 64] to %p#1 size [1, 64] : memref<8x64xf16>, !ktdf.fifo.slot<"DDR" -> "SFU", 64xf16>
      }
      ktdf.stage depends_in(%p#3) depends_out(%p#4) {
        %x = ktdf.read_from_fifo %p#0 : <"DDR" -> "SFU", 64xf16> -> tensor<1x64xf16>
        %y = ktdf.read_from_fifo %p#1 : <"DDR" -> "SFU", 64xf16> -> tensor<1x64xf16>
        %e = tensor.empty() : tensor<1x64xf16>
        %s = linalg.generic {indexing_maps = [#row, #row, #row], iterator_types = ["parallel", "parallel"]} ins(%x, %y : tensor<1x64xf16>, tensor<1x64xf16>) outs(%e : tensor<1x64xf16>) {
        ^bb0(%u: f16, %v: f16, %w: f16):
          %sum = arith.addf %u, %v : f16
          linalg.yield %sum : f16
        } -> tensor<1x64xf16>
        ktdf.write_to_fifo %s, %p#2 : tensor<1x64xf16>, <"SFU" -> "DDR", 64xf16>
      } {applicable_units = ["SFU"]}
      ktdf.stage depends_in(%p#4) depends_out(%p#5) {
        ktdf.data_transfer from %p#2 size [1, 64] to %C[%start_row + %i, %c0] size [1, 64] : !ktdf.fifo.slot<"SFU" -> "DDR", 64xf16>, memref<8x64xf16>
      }
    }
  }
  return
}
"""


def test_ktdf_pipeline_end_to_end():
    """4 cores, 2 rows each: 2 instances of a load / compute / store pipeline per core.
    HBM per core 128 / 4 = 32 B/cycle.
      load:    2 transfers of a 64-f16 row (128 B, 1 stick) / 32 = 8 cycles
      compute: linalg.generic over 1x64 with one addf: 64/64 = 1, plus ktir-cpu's
               pass of the generic itself over its output, 1: 2 cycles (FIFO reads/writes: LX, free)
      store:   128 B / 32 = 4 cycles
    Sequential: 2 x (8 + 2 + 4) = 28. Pipelined (depth 1): 14 + (2 - 1) x 8 = 22."""
    rng = np.random.default_rng(0)
    a, b = (rng.standard_normal((8, 64)).astype(np.float16) for _ in range(2))
    result = spyre_mlir.interpret(KTDF, a=a, b=b, c=np.zeros_like(a), options=InterpreterOptions(cost_model=True))
    assert np.array_equal(result["c"], a + b)
    est = result.report.estimate
    assert est.totals.tolist() == [28.0] * 4
    assert est.pipelined.tolist() == [22.0] * 4
    assert (est.sequential_cycles, est.pipelined_cycles) == (28.0, 22.0)
    assert est.to_json()["pipelined_cycles"] == 22.0
    stages = result.runtime.stats.stages
    assert [(r.instance, r.index) for r in stages] == [(i, k) for i in range(2) for k in range(3)]
    assert [float(r.cycles[0]) for r in stages[:3]] == [8.0, 2.0, 4.0]
    spans = check_trace(est.trace())
    threads = {e["args"]["name"] for e in est.trace()["traceEvents"] if e["name"] == "thread_name" and e["pid"] == 0}
    assert {"engine 0: load", "engine 1: compute (SFU)", "engine 2: store"} <= threads
    assert max(e["ts"] + e["dur"] for e in spans if e["pid"] == 0) == pytest.approx(22 / 1000)
    assert "pipelined:  22 cycles" in est.render()


# ---------------------------------------------------------------------------
# API and spyre-run
# ---------------------------------------------------------------------------


def test_estimate_only_when_asked():
    x = np.zeros((8, 64), np.float16)
    result = spyre_mlir.interpret(DIVERGENT, x=x, n=6)
    assert result.report.estimate is None and result.runtime.cost is None
    data = estimate_of(DIVERGENT, args=dict(x=x, n=6)).to_json()
    assert {"sequential_cycles", "pipelined_cycles", "bottleneck", "per_core", "components", "ops", "hardware"} <= set(data)
    assert data["pipelined_cycles"] is None
    assert data["bottleneck"] == {"component": "memory", "core": 0, "cycles": 20.0}
    assert [c["total"] for c in data["per_core"]] == [28.0, 24.0, 16.0, 12.0]
    assert data["components"] == {"compute": 8.0, "memory": 20.0, "communication": 0.0}


def spyre_run(*args: str, cwd=None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "spyre_mlir.tools.spyre_run", *args], capture_output=True, text=True, cwd=cwd, timeout=300
    )


def test_spyre_run_estimate_json_and_trace(tmp_path):
    kernel = tmp_path / "divergent.mlir"
    kernel.write_text(DIVERGENT)
    common = [str(kernel), "--arg", "x=zeros:8x64xf16", "--arg", "n=6"]
    proc = spyre_run(*common, "--estimate", "--estimate-json", str(tmp_path / "e.json"), "--trace", str(tmp_path / "t.json"))
    assert proc.returncode == 0, proc.stderr
    assert "sequential: 28 cycles" in proc.stdout
    assert "bottleneck: memory on core 0" in proc.stdout
    data = json.loads((tmp_path / "e.json").read_text())
    assert data["sequential_cycles"] == 28.0 and data["pipelined_cycles"] is None
    check_trace(json.loads((tmp_path / "t.json").read_text()))
    # a --hw override changes the figures: SIMD 32 elements/cycle doubles exp (4 -> 8 per iteration)
    proc = spyre_run(*common, "--estimate-json", "-", "--hw", "simd_elements_per_cycle=32")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["per_core"][0]["compute"] == 16.0
    hw = tmp_path / "hw.json"
    hw.write_text(json.dumps({"transcendental_penalty": 1}))
    proc = spyre_run(*common, "--estimate-json", "-", "--hw", str(hw))
    assert json.loads(proc.stdout)["per_core"][0]["compute"] == 2.0


@pytest.mark.parametrize(
    "hw, message",
    [
        ("bogus=1", "bad --hw 'bogus=1': unknown hardware parameter 'bogus'"),
        ("simd_elements_per_cycle=0", "must be positive"),
        ("clock_ghz=fast", "clock_ghz takes a number"),
        ("missing.json", "bad --hw 'missing.json': cannot read it"),
    ],
)
def test_spyre_run_bad_hw_is_a_clean_error(tmp_path, hw, message):
    kernel = tmp_path / "divergent.mlir"
    kernel.write_text(DIVERGENT)
    proc = spyre_run(str(kernel), "--arg", "x=zeros:8x64xf16", "--arg", "n=6", "--estimate", "--hw", hw, cwd=tmp_path)
    assert proc.returncode == 1
    assert proc.stderr.startswith("spyre-run: error: ") and message in proc.stderr, proc.stderr
    assert "Traceback" not in proc.stderr and proc.stdout == ""


def test_a_memref_copy_costs_its_bytes_read_and_written_at_the_lx_rate():
    import spyre_mlir
    from spyre_mlir.interpreter import cost

    module = spyre_mlir.parse(
        'func.func @f(%a: memref<2x64xf16, "L1">, %b: memref<2x64xf16, "L1">) {\n'
        '  memref.copy %a, %b : memref<2x64xf16, "L1"> to memref<2x64xf16, "L1">\n  return\n}'
    )
    (copy,) = [op for op in module.walk() if op.name == "memref.copy"]
    config = cost.HardwareConfig()
    charge = cost.OpCosts(config, 1).rule(None, copy)
    assert charge is not None and charge.component == "memory"
    assert charge.cycles == 2 * 2 * 64 * 2 / config.lx_bytes_per_cycle

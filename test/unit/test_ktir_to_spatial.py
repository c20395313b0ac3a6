"""From KTIR to a verified spatial program (issue 13): `--pipeline ktir-to-spatial`.

Translation validation: every kernel runs as its source and as the spatial
program the pipeline makes of it, on the same seeded arguments, and the
outputs agree (and agree with NumPy where a NumPy oracle is written here).
The matmul's shared tiles are multicast and the program reads fewer HBM
bytes than without fusing; each phase pass refuses a program in another
phase; refusals are located.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from conftest import CORPUS_SCALARS, corpus_params, kernel_arguments
from xdsl.dialects.builtin import IntegerAttr, StringAttr

import spyre_mlir
from spyre_mlir import DiagnosticError
from spyre_mlir.dialects import spatial
from spyre_mlir.passes.spatial.spatial_verify import CERTIFICATE_ATTR

KERNELS = Path(__file__).parent / "kernels" / "spatial"
MATMUL = KERNELS / "matmul_multicast.mlir"
ROW_NORM = KERNELS / "row_norm.mlir"


def scalars_option(values: dict) -> str:
    return ",".join(f"{k}={v}" for k, v in values.items())


def lower(path_or_text, scalars: dict | None = None, **options) -> object:
    module = spyre_mlir.parse(path_or_text)
    opts = dict(options)
    if scalars:
        opts["scalars"] = scalars_option(scalars)
    spec = "ktir-to-spatial"
    if opts:
        spec += "{" + ",".join(f'{k}="{v}"' if k == "scalars" else f"{k}={v}" for k, v in opts.items()) + "}"
    spyre_mlir.PassManager.from_pipeline(spec).run(module)
    return module


def programs(module) -> list[spatial.ProgramOp]:
    return [op for op in module.walk() if isinstance(op, spatial.ProgramOp)]


def matmul_args(seed: int = 0) -> dict:
    rng = np.random.default_rng(seed)
    return dict(
        a=rng.standard_normal((64, 256)).astype(np.float32),
        b=rng.standard_normal((256, 128)).astype(np.float32),
        c=np.zeros((64, 128), np.float32),
        K=256,
        BK=64,
    )


MATMUL_SCALARS = dict(K=256, BK=64)


def test_matmul_lowers_to_a_verified_program_equal_to_source_and_numpy():
    out = lower(MATMUL, MATMUL_SCALARS)
    (program,) = programs(out)
    assert program.phase == "verified"
    assert CERTIFICATE_ATTR in program.attributes
    args = matmul_args()
    source = spyre_mlir.interpret(spyre_mlir.parse(MATMUL), "matmul", **{k: (v.copy() if isinstance(v, np.ndarray) else v) for k, v in args.items()})
    got = spyre_mlir.interpret(out, "matmul", **args)
    np.testing.assert_allclose(got["c"], source["c"], rtol=0, atol=0)
    np.testing.assert_allclose(got["c"], args["a"] @ args["b"], rtol=1e-4, atol=1e-3)
    assert any(isinstance(op, spatial.WaitOp) for op in out.walk())
    assert any(isinstance(op, spatial.SignalOp) for op in out.walk())


def _hbm_read_bytes(module, name: str, args: dict) -> int:
    from spyre_mlir.interpreter.ops_spatial import simulate

    _, stats = simulate(module, name, **args)
    return stats.hbm_read_bytes


def test_matmul_shared_tiles_are_multicast_and_read_fewer_hbm_bytes():
    fused = lower(MATMUL, MATMUL_SCALARS)
    plain = lower(MATMUL, MATMUL_SCALARS, multicast="false")
    groups = [op for op in fused.walk() if isinstance(op, spatial.MulticastOp)]
    # 2x2 blocks, 4 K steps: each A tile is shared by the 2 blocks of a row, each B tile by the 2 of a column
    assert len(groups) == 4
    assert all(len(g.targets.data) == 1 for g in groups)
    assert not any(isinstance(op, spatial.MulticastOp) for op in plain.walk())
    fused_bytes = _hbm_read_bytes(fused, "matmul", matmul_args())
    plain_bytes = _hbm_read_bytes(plain, "matmul", matmul_args())
    # without fusing every block reads its A (32x64) and B (64x64) tile per K step, f32
    assert plain_bytes == 4 * 4 * (32 * 64 + 64 * 64) * 4
    assert fused_bytes == plain_bytes // 2
    a = spyre_mlir.interpret(fused, "matmul", **matmul_args())
    b = spyre_mlir.interpret(plain, "matmul", **matmul_args())
    np.testing.assert_array_equal(a["c"], b["c"])


def row_norm_args(seed: int = 0) -> dict:
    x = np.random.default_rng(seed).standard_normal((8, 64)).astype(np.float32)
    return dict(x=x, y=np.zeros((8, 64), np.float32), N=64, BLOCK=16, scale=0.5)


def test_loop_carried_values_and_values_across_loops_live_in_locals():
    out = lower(ROW_NORM, dict(N=64, BLOCK=16, scale=0.5))
    locals_ = [b for b in out.walk() if isinstance(b, spatial.BufferOp) and b.is_local]
    assert locals_, "the sum carried by the loop and the mean used in the next loop are locals"
    args = row_norm_args()
    got = spyre_mlir.interpret(out, "row_norm", **args)
    x = args["x"]
    s = x.reshape(8, 4, 16).sum(1).sum(1) + 0.5 + np.arange(8)
    np.testing.assert_allclose(got["y"], x - s[:, None], rtol=1e-5, atol=1e-5)
    source = spyre_mlir.interpret(ROW_NORM, "row_norm", **row_norm_args())
    np.testing.assert_array_equal(got["y"], source["y"])


def test_program_refuses_scalars_other_than_its_specialization():
    out = lower(ROW_NORM, dict(N=64, BLOCK=16, scale=0.5))
    args = row_norm_args()
    args["N"] = 32
    with pytest.raises(DiagnosticError, match="specialized for N = 64"):
        spyre_mlir.interpret(out, "row_norm", **args)


def test_missing_scalar_is_a_located_error():
    with pytest.raises(DiagnosticError) as info:
        lower(MATMUL, dict(K=256))
    text = info.value.diagnostic.render()
    assert "%BK" in text and "scalars=" in text and "matmul_multicast.mlir:5:3: error" in text


@pytest.mark.parametrize(
    "pass_name,phase",
    [
        ("spatial-place", "tiled"),
        ("spatial-fuse-readers", "placed"),
        ("spatial-size-buffers", "fused"),
        ("spatial-synthesize-handshakes", "sized"),
        ("spatial-verify", "synthesized"),
    ],
)
def test_each_phase_pass_refuses_a_program_in_another_phase(pass_name, phase):
    module = spyre_mlir.parse(MATMUL)
    spyre_mlir.PassManager.parse(
        'spyre-raise-counted-loops,cse,canonicalize,spatial-tile{scalars="K=256,BK=64"}'
    ).run(module)
    # the tiled program, one phase too early for every pass but spatial-place
    (program,) = programs(module)
    wrong = "verified" if phase == "tiled" else "tiled"
    program.attributes[spatial.PHASE_ATTR] = StringAttr(wrong)
    with pytest.raises(DiagnosticError, match=f"{pass_name} needs a program in phase {phase}, got {wrong}"):
        spyre_mlir.PassManager.parse(pass_name).run(module)


def test_data_dependent_control_flow_is_refused_with_a_location():
    text = """
func.func @k(%x: index) attributes {grid = [1]} {
  %v = ktdp.construct_memory_view %x, sizes: [4], strides: [1] {coordinate_set = affine_set<(d0) : (d0 >= 0, -d0 + 3 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<4xf32>
  %c0 = arith.constant 0 : index
  %t = ktdp.construct_access_tile %v[%c0] {access_tile_set = affine_set<(d0) : (d0 >= 0, -d0 + 3 >= 0)>, access_tile_order = affine_map<(d0) -> (d0)>} : memref<4xf32> -> !ktdp.access_tile<4xindex>
  %a = ktdp.load %t : !ktdp.access_tile<4xindex> -> tensor<4xf32>
  %e = tensor.extract %a[%c0] : tensor<4xf32>
  %z = arith.constant 0.0 : f32
  %p = arith.cmpf ogt, %e, %z : f32
  scf.if %p {
    ktdp.store %a, %t : tensor<4xf32>, !ktdp.access_tile<4xindex>
  }
  return
}
"""
    with pytest.raises(DiagnosticError) as info:
        lower(text)
    assert re.search(r":10:3: error: spatial-tile: this scf.if's condition is computed from data",
                     info.value.diagnostic.render())


# -- the corpus ------------------------------------------------------------------


@pytest.mark.parametrize("path", corpus_params())
def test_corpus_kernel_through_ktir_to_spatial_equals_its_source(path):
    name, args, hbm = kernel_arguments(path)
    grid = args.pop("grid", None)
    scalars = dict(CORPUS_SCALARS.get(path.stem, {}))
    options = {"grid": ",".join(map(str, grid))} if grid else {}
    out = lower(path, scalars, **options)
    (program,) = [p for p in programs(out) if p.sym_name.data == name]
    assert program.phase == "verified"
    copy = {k: (v.copy() if isinstance(v, np.ndarray) else v) for k, v in args.items()}
    source = spyre_mlir.interpret(spyre_mlir.parse(path), name, hbm={a: v.copy() for a, v in hbm.items()},
                                  grid=grid, **copy)
    got = spyre_mlir.interpret(out, name, hbm={a: v.copy() for a, v in hbm.items()}, **args)
    arrays = [k for k, v in args.items() if isinstance(v, np.ndarray)]
    assert arrays or hbm
    for k in arrays:
        np.testing.assert_array_equal(np.asarray(got[k]), np.asarray(source[k]), err_msg=f"{path.name}: {k}")
    dtypes = {v.dtype for v in hbm.values()}
    for tensor in program.of_kind(spatial.TensorOp):  # data at constant addresses: read back each tensor
        at = tensor.attributes.get("address")
        if at is None:
            continue
        (dtype,) = dtypes
        shape, where = tensor.tensor_type.get_shape(), int(at.value.data)
        np.testing.assert_array_equal(got.read_hbm(where, shape, dtype), source.read_hbm(where, shape, dtype),
                                      err_msg=f"{path.name}: @{tensor.sym_name.data}")


# -- broken choreographies: spatial-verify catches each, located and named ---------


def _synthesized_matmul():
    module = spyre_mlir.parse(MATMUL)
    spec = 'ktir-to-spatial{scalars="K=256,BK=64"}'
    spyre_mlir.PassManager.from_pipeline(spec).run(module)
    (program,) = programs(module)
    program.attributes[spatial.PHASE_ATTR] = StringAttr("synthesized")
    return module, program


def _reverify(module):
    spyre_mlir.PassManager.parse("spatial-verify").run(module)


def test_a_removed_signal_is_refused_naming_the_semaphore():
    """The pass manager verifies its input first: a wait nobody signals is a
    structural error of the program before spatial-verify simulates it."""
    module, _ = _synthesized_matmul()
    signal = next(op for op in module.walk() if isinstance(op, spatial.SignalOp)
                  and op.semaphore.root_reference.data.endswith("_full"))
    name = signal.semaphore.root_reference.data
    signal.detach()
    signal.erase()
    with pytest.raises(DiagnosticError, match=rf"no engine signals semaphore @{name}, so the wait never ends"):
        _reverify(module)


def test_a_wait_never_satisfied_deadlocks_naming_the_semaphore():
    module, _ = _synthesized_matmul()
    wait = next(op for op in module.walk() if isinstance(op, spatial.WaitOp)
                and op.semaphore.root_reference.data.endswith("_full"))
    name = wait.semaphore.root_reference.data
    wait.count = IntegerAttr(1000, 64)  # more than its signaller ever gives
    with pytest.raises(DiagnosticError, match=rf"deadlock.*@{name}"):
        _reverify(module)


def test_a_buffer_shallower_than_its_handshake_overflows_naming_the_buffer():
    module, program = _synthesized_matmul()
    deep = next(b for b in program.of_kind(spatial.BufferOp) if b.depth_value == 2)
    deep.depth = IntegerAttr(1, 64)
    with pytest.raises(DiagnosticError, match=rf"overflow.*buffer @{deep.sym_name.data}"):
        _reverify(module)


def test_a_consumer_reading_a_tile_twice_underflows_naming_stage_and_buffer():
    module, program = _synthesized_matmul()
    step = next(op for op in module.walk() if isinstance(op, spatial.ComputeStepOp) and op.indices)
    stage = step.stage.root_reference.data
    step.parent_block().insert_op_after(step.clone(), step)
    with pytest.raises(DiagnosticError, match=rf"underflow.*stage @{stage} reads buffer @"):
        _reverify(module)


def test_spatial_program_generic_form_parses_in_real_mlir_and_reads_back():
    from test_real_mlir import IREE_OPT, check_against_mlir

    if IREE_OPT is None:
        pytest.skip("iree-opt (iree-base-compiler) not installed")
    check_against_mlir(lower(MATMUL, MATMUL_SCALARS))


CONSTANT_ADDRESS = """
func.func @double() attributes {grid = [2]} {
  %c = ktdp.get_compute_tile_id : index
  %c4 = arith.constant 4 : index
  %src = arith.constant 64 : index
  %dst = arith.constant 128 : index
  %o = arith.muli %c, %c4 : index
  %sv = ktdp.construct_memory_view %src, sizes: [8], strides: [1] {coordinate_set = affine_set<(d0) : (d0 >= 0, -d0 + 7 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<8xf32>
  %dv = ktdp.construct_memory_view %dst, sizes: [8], strides: [1] {coordinate_set = affine_set<(d0) : (d0 >= 0, -d0 + 7 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<8xf32>
  %t = ktdp.construct_access_tile %sv[%o] {access_tile_set = affine_set<(d0) : (d0 >= 0, -d0 + 3 >= 0)>, access_tile_order = affine_map<(d0) -> (d0)>} : memref<8xf32> -> !ktdp.access_tile<4xindex>
  %u = ktdp.construct_access_tile %dv[%o] {access_tile_set = affine_set<(d0) : (d0 >= 0, -d0 + 3 >= 0)>, access_tile_order = affine_map<(d0) -> (d0)>} : memref<8xf32> -> !ktdp.access_tile<4xindex>
  %a = ktdp.load %t : !ktdp.access_tile<4xindex> -> tensor<4xf32>
  %b = arith.addf %a, %a : tensor<4xf32>
  ktdp.store %b, %u : tensor<4xf32>, !ktdp.access_tile<4xindex>
  return
}
"""


def test_data_at_constant_hbm_addresses_is_a_fixed_address_tensor():
    out = lower(CONSTANT_ADDRESS)
    tensors = {t.sym_name.data: t for t in out.walk() if isinstance(t, spatial.TensorOp)}
    assert sorted(tensors) == ["hbm128", "hbm64"]
    assert tensors["hbm64"].attributes["address"].value.data == 64
    x = np.arange(8, dtype=np.float32)
    got = spyre_mlir.interpret(out, "double", hbm={64: x.copy()})
    np.testing.assert_array_equal(got.read_hbm(128, (8,), np.float32), 2 * x)
    with pytest.raises(DiagnosticError, match="tensor @hbm64 at HBM element 64: read of uninitialized HBM"):
        spyre_mlir.interpret(out, "double")


def test_arguments_the_kernel_does_not_use_are_taken_and_ignored():
    text = CONSTANT_ADDRESS.replace("func.func @double()", "func.func @double(%unused: index, %n: index)")
    out = lower(text)
    (program,) = programs(out)
    assert [a.data for a in program.attributes["spatial.unused_args"].data] == ["unused", "n"]
    x = np.arange(8, dtype=np.float32)
    got = spyre_mlir.interpret(out, "double", hbm={64: x.copy()}, unused=np.zeros(4, np.float32), n=3)
    np.testing.assert_array_equal(got.read_hbm(128, (8,), np.float32), 2 * x)


def test_conditions_fixed_per_site_choose_a_branch_when_the_program_is_built():
    path = KERNELS / "guarded.mlir"
    out = lower(path, dict(n=3))
    x = np.arange(16, dtype=np.float32)
    args = dict(x=x, y=np.zeros(16, np.float32), flag=np.zeros(4, np.float32), n=3)
    got = spyre_mlir.interpret(out, "guarded", **{k: (v.copy() if isinstance(v, np.ndarray) else v) for k, v in args.items()})
    expected = np.concatenate([2 * x[:12], x[12:]])
    np.testing.assert_array_equal(got["y"], expected)
    np.testing.assert_array_equal(got["flag"], np.ones(4, np.float32))
    source = spyre_mlir.interpret(path, "guarded", **args)
    for k in ("y", "flag"):
        np.testing.assert_array_equal(got[k], source[k])
    stores = [op for op in out.walk() if isinstance(op, spatial.StoreStepOp)]
    assert len(stores) == 4 + 1  # one per block, and block 0's flag


def test_a_condition_that_varies_with_a_loop_is_refused_at_the_if():
    text = (KERNELS / "row_norm.mlir").read_text()
    text = text.replace("%mean = tensor.splat %s2 : tensor<1x16xf32>", """%mean = tensor.splat %s2 : tensor<1x16xf32>
      %first = arith.cmpi eq, %r, %core : index
      scf.if %first {
        %w = ktdp.construct_access_tile %yv[%r, %c0] {
          access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 >= 0, d1 >= 0, -d1 + 15 >= 0)>,
          access_tile_order = affine_map<(d0, d1) -> (d0, d1)>
        } : memref<8x64xf32> -> !ktdp.access_tile<1x16xindex>
        ktdp.store %mean, %w : tensor<1x16xf32>, !ktdp.access_tile<1x16xindex>
      }""")
    with pytest.raises(DiagnosticError) as info:
        lower(text, dict(N=64, BLOCK=16, scale=0.5))
    rendered = info.value.diagnostic.render()
    assert "error: spatial-tile: this 'arith.cmpi' varies with an enclosing loop" in rendered


def test_loads_of_stored_data_wait_for_the_store_through_hbm_order_semaphores():
    path = KERNELS / "hbm_chain.mlir"
    out = lower(path)
    orders = [s for s in out.walk() if isinstance(s, spatial.SemaphoreOp) and spatial.HBM_ORDER_ATTR in s.attributes]
    assert [s.init.value.data for s in orders] == [1, 0]
    x = np.random.default_rng(0).random((8, 4)).astype(np.float32)
    y = np.zeros((8, 4), np.float32)
    y[0] = x[0]
    args = dict(x=x, y=y, z=np.zeros((8, 4), np.float32))
    got = spyre_mlir.interpret(out, "running_sum", **{k: v.copy() for k, v in args.items()})
    np.testing.assert_allclose(got["y"], np.cumsum(x, axis=0), rtol=1e-6)
    np.testing.assert_allclose(got["z"], 2 * np.cumsum(x, axis=0), rtol=1e-6)
    source = spyre_mlir.interpret(path, "running_sum", **args)
    for k in ("y", "z"):
        np.testing.assert_array_equal(got[k], source[k])


def test_without_the_ordering_the_load_reads_stale_data():
    """The semaphores are what makes the running sum right: drop their waits and
    the load engine, running ahead, reads rows the store engine has not written."""
    out = lower(KERNELS / "hbm_chain.mlir")
    for op in [op for op in out.walk() if isinstance(op, spatial.WaitOp)
               and op.semaphore.root_reference.data.startswith("b0_hbm")]:
        op.detach()
        op.erase()
    x = np.random.default_rng(0).random((8, 4)).astype(np.float32)
    y = np.zeros((8, 4), np.float32)
    y[0] = x[0]
    got = spyre_mlir.interpret(out, "running_sum", x=x, y=y, z=np.zeros((8, 4), np.float32))
    assert not np.allclose(got["y"], np.cumsum(x, axis=0))


@pytest.mark.parametrize("n", [1, 2, 3])
def test_hbm_round_trips_lower_and_equal_their_source(n):
    path = Path(__file__).parent / "kernels" / "schedule" / "round_trips.mlir"
    out = lower(path)
    x = np.random.default_rng(n).random((4, 32)).astype(np.float32)
    args = {"x": x, "out": np.zeros((4, 32), np.float32), **{f"s{k}": np.zeros((4, 32), np.float32) for k in range(n)}}
    source = spyre_mlir.interpret(path, f"round_trip_{n}", **{k: v.copy() for k, v in args.items()})
    got = spyre_mlir.interpret(out, f"round_trip_{n}", **args)
    for k in args:
        np.testing.assert_array_equal(got[k], source[k])

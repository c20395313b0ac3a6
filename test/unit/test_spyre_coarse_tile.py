"""Coarse tiling and the bundle (issue 11): every tile of every kernel checked.

Each kernel of kernels/tiling/ runs in the interpreter before and after every
pass of `ktir-to-bundle`, then as the emitted bundle (`@sdsc_bundle` with its
SDSC files); all must equal the source kernel's outputs, which must equal a
NumPy oracle. The whole output is compared, so a tile that is skipped,
written twice or written at another tile's address fails (the public
implementation's users found such bugs where tests looked at one tile).
"""

from __future__ import annotations

import json
import subprocess

import numpy as np
import pytest
from conftest import CORPUS, REPO, kernel_arguments

import spyre_mlir
from spyre_mlir import ir
from spyre_mlir.dialects.ktdp import ConstructMemoryViewOp
from spyre_mlir.dialects.spyre_loop import LoopOp
from spyre_mlir.passes.pipelines import PIPELINES

TILING = REPO / "test" / "unit" / "kernels" / "tiling"
KERNELS = TILING / "kernels.mlir"
SEED = TILING / "seed000_add_mul.mlir"
BUNDLE_PASSES = PIPELINES["ktir-to-bundle"][0].split(",")
STAGES = BUNDLE_PASSES[:-1]  # all but the emission

F32 = np.float32
ARGS = {  # name -> {argument: shape}
    "flat": {"x": (512,), "y": (512,), "z": (512,)},
    "two_groups": {k: (8, 128) for k in ("a", "b", "c", "y", "w")},
    "size_one": {"x": (4, 64), "out": (4, 64)},
    "two_dims": {"x": (8, 128), "y": (8, 128), "out": (8, 128)},
    "inside_outside": {k: (8, 128) for k in ("a", "b", "c", "y", "z")},
    "broadcast_reduce": {"x": (8, 128), "w": (128,), "out": (8,)},
}
ORACLES = {
    "flat": lambda a: {"z": a["x"] + a["y"]},
    "two_groups": lambda a: {"y": a["a"] + a["b"], "w": np.exp(a["c"])},
    "size_one": lambda a: {"out": np.exp(a["x"]) * 2},
    "two_dims": lambda a: {"out": a["x"] * a["y"]},
    "inside_outside": lambda a: {"y": a["a"] + a["b"], "z": (a["a"] + a["b"]) * a["c"]},
    "broadcast_reduce": lambda a: {"out": (a["x"] * a["w"]).sum(axis=1)},
}
# The nest each hint asks for: (count, tiled dims, tile sizes) outermost first, per group.
NESTS = {
    "flat": [[(4, [0], [128])]],
    "two_groups": [[(2, [0], [4])], [(4, [1], [32])]],
    "size_one": [[(4, [0], [1])]],
    "two_dims": [[(2, [1], [64]), (4, [0], [2])]],
    "inside_outside": [[(2, [0], [4]), (2, [1], [64])]],
    "broadcast_reduce": [[(2, [0], [4])]],
}


def only(name: str):
    """The kernels file with just kernel `name` (a bundle holds one kernel)."""
    module = spyre_mlir.parse(KERNELS)
    for op in list(module.body.block.ops):
        if getattr(op, "sym_name", None) is not None and op.sym_name.data != name:
            op.detach()
            op.erase()
    return module


def inputs(name: str, seed: int = 0) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    return {k: rng.standard_normal(shape).astype(F32) for k, shape in ARGS[name].items()}


def run(module, func: str, args: dict) -> dict:
    out = spyre_mlir.interpret(module, func, **{k: v.copy() for k, v in args.items()})
    return {k: np.asarray(v) for k, v in out.items()}


def assert_same(got: dict, want: dict, what: str) -> None:
    assert got.keys() == want.keys()
    for k in want:
        np.testing.assert_array_equal(got[k], want[k], err_msg=f"{what}: output {k!r} differs")


def nests(module) -> list[list[tuple[int, list[int], list[int]]]]:
    """Each outermost spyre_loop nest as (count, tiled dims, tile sizes) per level, in module order."""
    found = []
    for op in module.walk():
        if isinstance(op, LoopOp) and not isinstance(op.parent_op(), LoopOp):
            nest, loop = [], op
            while loop is not None:
                nest.append((loop.static_count, list(loop.tiled_dims.get_values()), list(loop.tile_sizes.get_values())))
                inner = [o for o in loop.body.block.ops if isinstance(o, LoopOp)]
                loop = inner[0] if inner else None
            found.append(nest)
    return found


@pytest.mark.parametrize("name", sorted(ARGS))
def test_every_stage_and_the_bundle_compute_the_kernel(name, tmp_path):
    args = inputs(name)
    module = only(name)
    source = run(module, name, args)
    expected = ORACLES[name]({k: v for k, v in args.items()})
    for k, v in expected.items():
        np.testing.assert_allclose(source[k], v, rtol=1e-5, atol=1e-5, err_msg=f"source kernel: {k}")
    for stage in STAGES:
        spyre_mlir.PassManager.parse(stage).run(module)
        assert_same(run(module, name, args), source, f"after {stage}")
    assert nests(module) == NESTS[name]
    spyre_mlir.PassManager.parse(f'spyre-emit-bundle{{out-dir="{tmp_path}" format=ktir}}').run(module)
    assert_same(run(tmp_path / "bundle.mlir", "sdsc_bundle", args), source, "the bundle")


@pytest.mark.parametrize("name", sorted(ARGS))
def test_unrolled_tiles_compute_the_kernel(name):
    args = inputs(name, seed=1)
    module = only(name)
    source = run(module, name, args)
    spyre_mlir.PassManager.parse(",".join([*STAGES, "spyre-unroll-loops"])).run(module)
    assert not nests(module)
    assert_same(run(module, name, args), source, "unrolled")


def test_seed_000_example(tmp_path):
    """y = a + b; z = y * c over [1024, 4096] f16, 2 slices of rows (outer) and 4 of columns."""
    rng = np.random.default_rng(0)
    size = 1024 * 4096
    args = {k: rng.standard_normal(size).astype(np.float16) for k in "abcz"}
    module = spyre_mlir.parse(SEED)
    source = run(module, "add_mul", args)
    spyre_mlir.PassManager.from_pipeline(f"ktir-to-bundle{{out-dir={tmp_path},format=ktir}}").run(module)
    bundle = run(tmp_path / "bundle.mlir", "sdsc_bundle", args)
    assert_same(bundle, source, "the bundle")
    # Every element of z, in the host layout: (a + b) * c rounded to f16 at each step.
    from spyre_mlir.analysis.layout import Layout, from_device

    layout = Layout.from_arrays([1, 0, 1], [1, 0, 2], [64, 0, 64], 2)
    host = {k: from_device(args[k], (1024, 4096), layout) for k in "abc"}
    want = ((host["a"] + host["b"]).astype(np.float16) * host["c"]).astype(np.float16)
    np.testing.assert_array_equal(from_device(bundle["z"], (1024, 4096), layout), want)

    text = (tmp_path / "bundle.mlir").read_text()
    bounds = [line for line in text.splitlines() if "loop_bound" in line and "arith.constant" in line]
    assert [int(b.split("constant")[1].split(":")[0]) for b in bounds] == [2, 4]
    assert text.count("scf.for") == 2 and text.count('"sdscbundle.sdsc_execute"') == 1
    # Byte strides from the stick layout [64, 1024, 64] f16: rows (outer) 16 x 64 x 2, sticks (inner) 16 x 65536 x 2.
    assert "d0 * 2048 + d1 * 2097152" in text
    sdsc = json.loads((tmp_path / "sdsc_0.json").read_text())
    assert sdsc["loops"] == [
        {"count": 2, "tiled_dims": [1], "tile_sizes": [16]},
        {"count": 4, "tiled_dims": [0], "tile_sizes": [16]},
    ]
    add, mul = sdsc["ops"]
    assert (add["op"], mul["op"]) == ("arith.addf", "arith.mulf")
    y_out, y_in = add["args"][-1], mul["args"][0]
    assert "lx" in y_out["allocation"] and y_out["allocation"] == y_in["allocation"]
    assert y_out["device_size"] == [16, 16, 64]
    assert "hbm" in mul["args"][-1]["allocation"]
    assert sdsc["core_split"]["cores"] == 32 and sdsc["core_split"]["per_iteration"] == [16, 512, 64]


def test_loop_internal_buffer_does_not_advance():
    """The intermediate's LX view sits at a constant offset inside the loop; HBM bases move with the tile."""
    module = spyre_mlir.parse(SEED)
    spyre_mlir.PassManager.parse(",".join(STAGES)).run(module)
    loops = [op for op in module.walk() if isinstance(op, LoopOp)]
    ivs = {loop.iteration for loop in loops}
    lx = [op for op in module.walk() if isinstance(op, ConstructMemoryViewOp) and "spyre.lx_offset" in op.attributes]
    hbm = [op for op in module.walk() if isinstance(op, ConstructMemoryViewOp) and "spyre.lx_offset" not in op.attributes]
    assert lx and hbm

    def depends_on_iv(value) -> bool:
        stack, seen = [value], set()
        while stack:
            v = stack.pop()
            if v in ivs:
                return True
            if v in seen or not hasattr(v.owner, "operands"):
                continue
            seen.add(v)
            stack.extend(v.owner.operands)
        return False

    assert not any(depends_on_iv(v.offset) for v in lx)
    assert all(depends_on_iv(v.offset) for v in hbm)


def test_automatic_slices_fit_lx():
    """Without a hint, a group is tiled only where its working set exceeds LX, with the fewest slices that fit."""
    module = only("two_dims")
    kernel = next(op for op in module.walk() if getattr(op, "sym_name", None) is not None)
    del kernel.attributes["spyre.slices"]
    # x, y and x * y (4 KiB each) are live at once: 12 KiB.
    for lx, count in ((16384, None), (6144, 2), (3000, 8)):
        m = module.clone()
        spyre_mlir.PassManager.parse(f"ktdp-extract-compute-groups,spyre-coarse-tile{{lx-bytes={lx}}}").run(m)
        assert nests(m) == ([] if count is None else [[(count, [0], [8 // count])]]), lx


def test_same_dim_divided_at_two_levels(tmp_path):
    """[[2, [0]], [2, [0]]]: the inner loop divides the outer loop's tile of 256 into two of 128."""
    from xdsl.dialects.builtin import ArrayAttr, IntegerAttr

    module = only("flat")
    kernel = next(op for op in module.walk() if getattr(op, "sym_name", None) is not None)
    level = ArrayAttr([IntegerAttr(2, 64), ArrayAttr([IntegerAttr(0, 64)])])
    kernel.attributes["spyre.slices"] = ArrayAttr([level, level])
    args = inputs("flat", seed=2)
    source = run(module, "flat", args)
    spyre_mlir.PassManager.parse(",".join(STAGES)).run(module)
    assert nests(module) == [[(2, [0], [256]), (2, [0], [128])]]
    assert_same(run(module, "flat", args), source, "tiled")
    spyre_mlir.PassManager.parse(f'spyre-emit-bundle{{out-dir="{tmp_path}" format=ktir}}').run(module)
    assert_same(run(tmp_path / "bundle.mlir", "sdsc_bundle", args), source, "the bundle")
    assert "d0 * 1024 + d1 * 512" in (tmp_path / "bundle.mlir").read_text()  # f32: 256 and 128 elements


def test_hint_is_consumed():
    """A second run of the pass does not tile again (the hint was used)."""
    module = only("flat")
    spyre_mlir.PassManager.parse("ktdp-extract-compute-groups,spyre-coarse-tile,spyre-coarse-tile").run(module)
    assert nests(module) == NESTS["flat"]


def corpus():
    return sorted(CORPUS.glob("*.mlir")) if CORPUS.is_dir() else []


@pytest.mark.skipif(not CORPUS.is_dir(), reason="../shared/corpus is not beside the repo")
@pytest.mark.parametrize("options", ["", ",slices=2"])
@pytest.mark.parametrize("path", corpus(), ids=lambda p: p.stem)
def test_corpus_bundle_equals_source(path, options, tmp_path):
    name, args, hbm = kernel_arguments(path, seed=0)
    before = spyre_mlir.interpret(path, name, hbm=hbm, **args)
    module = spyre_mlir.parse(path)
    spyre_mlir.PassManager.from_pipeline(f"ktir-to-bundle{{out-dir={tmp_path},format=ktir{options}}}").run(module)
    _, args, hbm = kernel_arguments(path, seed=0)
    after = spyre_mlir.interpret(tmp_path / "bundle.mlir", "sdsc_bundle", hbm=hbm, **args)
    assert_same({k: np.asarray(v) for k, v in after.items()}, {k: np.asarray(v) for k, v in before.items()}, path.stem)
    assert len(list(tmp_path.glob("sdsc_*.json"))) == ir.print_ir(module).count("sdsc_execute")


def test_bundle_parses_in_real_mlir(tmp_path):
    from conftest import find_iree_opt

    iree_opt = find_iree_opt()
    if iree_opt is None:
        pytest.skip("iree-opt (iree-base-compiler) is not installed")
    module = spyre_mlir.parse(SEED)
    spyre_mlir.PassManager.from_pipeline(f"ktir-to-bundle{{out-dir={tmp_path},format=ktir}}").run(module)
    done = subprocess.run(
        [iree_opt, "--allow-unregistered-dialect", str(tmp_path / "bundle.mlir")], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert "sdscbundle.sdsc_execute" in done.stdout


# -- positions (issue 18, item 9): linalg.index inside a tiled group -------------

POSITIONS = TILING / "positions.mlir"
BIG_POSITIONS = TILING / "big_positions.mlir"
ROWS, COLS = np.meshgrid(np.arange(8), np.arange(64), indexing="ij")


def only_in(path, name: str):
    module = spyre_mlir.parse(path)
    for op in list(module.body.block.ops):
        if getattr(op, "sym_name", None) is not None and op.sym_name.data != name:
            op.detach()
            op.erase()
    return module


@pytest.mark.parametrize(
    "name, options, want",
    [
        ("row_index", ",slices=2", lambda a: {"out": ROWS.astype(F32)}),
        ("both_indices", "", lambda a: {"out": a["x"] + (100 * ROWS + COLS).astype(F32)}),
    ],
)
def test_linalg_index_counts_from_the_tile_origin(name, options, want, tmp_path):
    """ktir-to-bundle{slices=2} used to compute row indices 0 1 2 3 0 1 2 3 for 0..7: the tile's
    origin is now added to linalg.index of every tiled loop (rows and columns, nested)."""
    rng = np.random.default_rng(3)
    args = {"out": np.zeros((8, 64), F32)} | ({"x": rng.standard_normal((8, 64)).astype(F32)} if name != "row_index" else {})
    module = only_in(POSITIONS, name)
    source = run(module, name, args)
    for k, v in want(args).items():
        np.testing.assert_array_equal(source[k], v, err_msg=f"source kernel: {k}")
    unrolled = module.clone()
    spyre_mlir.PassManager.from_pipeline(f"ktir-to-bundle{{out-dir={tmp_path},format=ktir{options}}}").run(module)
    assert_same(run(tmp_path / "bundle.mlir", "sdsc_bundle", args), source, "the bundle")
    assert "scf.for" in (tmp_path / "bundle.mlir").read_text()  # it was tiled
    spyre_mlir.PassManager.parse(",".join([*STAGES, "spyre-unroll-loops"]).replace("spyre-coarse-tile", "spyre-coarse-tile{slices=2}" if options else "spyre-coarse-tile")).run(unrolled)
    assert_same(run(unrolled, name, args), source, "unrolled")


def test_automatically_sliced_group_with_positions(tmp_path):
    """A [1024, 1024] f32 group beyond LX, sliced by default options into 8 tiles of 128 rows:
    every row equals the source and NumPy (896 of 1024 rows used to be wrong)."""
    rng = np.random.default_rng(4)
    args = {k: rng.standard_normal((1024, 1024)).astype(F32) for k in ("x", "y")} | {"z": np.zeros((1024, 1024), F32)}
    source = run(BIG_POSITIONS, "big_positions", args)
    rows = np.arange(1024, dtype=F32)[:, None]
    np.testing.assert_allclose(source["z"], args["x"] + args["y"] * rows, rtol=1e-6)
    module = spyre_mlir.parse(BIG_POSITIONS)
    spyre_mlir.PassManager.from_pipeline(f"ktir-to-bundle{{out-dir={tmp_path},format=ktir}}").run(module)
    assert json.loads((tmp_path / "sdsc_0.json").read_text())["loops"] == [{"count": 8, "tiled_dims": [0], "tile_sizes": [128]}]
    assert_same(run(tmp_path / "bundle.mlir", "sdsc_bundle", args), source, "the bundle")


REFUSED = """
#m = affine_set<(d0, d1) : (d0 >= 0, -d0 + 7 >= 0, d1 >= 0, -d1 + 63 >= 0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @gather(%x: index, %out: index) HINT {
  %c0 = arith.constant 0 : index
  %xv = ktdp.construct_memory_view %x, sizes: [8, 64], strides: [64, 1] {coordinate_set = #m, memory_space = #ktdp.memory_space<global>} : memref<8x64xf32>
  %ov = ktdp.construct_memory_view %out, sizes: [8, 64], strides: [64, 1] {coordinate_set = #m, memory_space = #ktdp.memory_space<global>} : memref<8x64xf32>
  %xt = ktdp.construct_access_tile %xv[%c0, %c0] {access_tile_set = #m, access_tile_order = #id2} : memref<8x64xf32> -> !ktdp.access_tile<8x64xindex>
  %ot = ktdp.construct_access_tile %ov[%c0, %c0] {access_tile_set = #m, access_tile_order = #id2} : memref<8x64xf32> -> !ktdp.access_tile<8x64xindex>
  %a = ktdp.load %xt : !ktdp.access_tile<8x64xindex> -> tensor<8x64xf32>
  %e = tensor.empty() : tensor<8x64xf32>
  %r = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(IN) outs(%e : tensor<8x64xf32>) {
  ^bb0(ARG%o: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %v = tensor.extract %a[%i, %j] : tensor<8x64xf32>
    linalg.yield %v : f32
  } -> tensor<8x64xf32>
  ktdp.store %r, %ot : tensor<8x64xf32>, !ktdp.access_tile<8x64xindex>
  return
}
"""


def gather(hint: str, tiled_input: bool) -> str:
    text = REFUSED.replace("HINT", hint).replace("IN", "%a : tensor<8x64xf32>" if tiled_input else "%b : tensor<8x64xf32>")
    text = text.replace("ARG", "%in: f32, ")
    if not tiled_input:  # the generic iterates over %b (the output tile); %a is only read inside its body
        text = text.replace("  %e = tensor.empty()", "  %b = ktdp.load %ot : !ktdp.access_tile<8x64xindex> -> tensor<8x64xf32>\n  %e = tensor.empty()")
    return text


def test_tiled_tensor_read_inside_a_region_is_refused(tmp_path):
    """A tiled tensor read by position from inside a linalg body cannot be offset: with a hint a
    located error, with slices=N a remark and the group stays whole (and computes the source)."""
    from spyre_mlir.diagnostics import DiagnosticError

    hinted = spyre_mlir.parse(gather("attributes {spyre.slices = 2}", tiled_input=True))
    with pytest.raises(DiagnosticError, match="'tensor.extract' reads a tiled tensor from inside 'linalg.generic'"):
        spyre_mlir.PassManager.parse("ktdp-extract-compute-groups,spyre-coarse-tile").run(hinted)
    module = spyre_mlir.parse(gather("", tiled_input=True))
    args = {"x": np.random.default_rng(5).standard_normal((8, 64)).astype(F32), "out": np.zeros((8, 64), F32)}
    source = run(module, "gather", args)
    np.testing.assert_array_equal(source["out"], args["x"])
    spyre_mlir.PassManager.from_pipeline(f"ktir-to-bundle{{out-dir={tmp_path},format=ktir,slices=2}}").run(module)
    assert "scf.for" not in (tmp_path / "bundle.mlir").read_text()
    assert_same(run(tmp_path / "bundle.mlir", "sdsc_bundle", args), source, "the bundle")


def test_whole_tensor_read_inside_a_region_with_tile_positions(tmp_path):
    """An untiled tensor (loaded whole in every tile) read at linalg.index positions: tiled, and the
    offset index reads the right element of it."""
    module = spyre_mlir.parse(gather("", tiled_input=False))
    args = {"x": np.random.default_rng(6).standard_normal((8, 64)).astype(F32), "out": np.zeros((8, 64), F32)}
    source = run(module, "gather", args)
    np.testing.assert_array_equal(source["out"], args["x"])
    spyre_mlir.PassManager.from_pipeline(f"ktir-to-bundle{{out-dir={tmp_path},format=ktir,slices=2}}").run(module)
    assert "scf.for" in (tmp_path / "bundle.mlir").read_text()
    assert_same(run(tmp_path / "bundle.mlir", "sdsc_bundle", args), source, "the bundle")


# -- tail tiles: an access tile past its view's end stays masked in every slice ----

TAILS = TILING / "tails.mlir"
SENTINEL = F32(7.0)
TAIL_ARGS = {  # name -> {argument: array shape} (arrays longer than the views: the rest holds the sentinel)
    "tail_rows": {"x": (16, 64), "y": (16, 64), "out": (16, 64)},
    "short_view": {"x": (16, 64), "out": (16, 64)},
    "grid_tail": {"x": (24, 64), "out": (24, 64)},
    "two_dim_tail": {"x": (8, 64), "y": (8, 64), "out": (8, 64)},
}


def _tail_oracle(name: str, a: dict) -> dict:
    out = np.full(TAIL_ARGS[name]["out"], SENTINEL, F32)
    if name == "tail_rows":
        out[:13] = a["x"][:13] * 2 + a["y"][:13]
    elif name == "short_view":
        out[:5] = a["x"][:5] * 3
    elif name == "grid_tail":
        out[:20] = a["x"][:20] + (np.arange(20) % 16)[:, None].astype(F32)
    else:
        out[:6, :40] = a["x"][:6, :40] - a["y"][:6, :40]
    return {"out": out}


def tail_inputs(name: str, seed: int = 0) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    args = {k: rng.standard_normal(shape).astype(F32) for k, shape in TAIL_ARGS[name].items()}
    args["out"] = np.full(TAIL_ARGS[name]["out"], SENTINEL, F32)
    return args


@pytest.mark.parametrize(
    "name, options, tiled",
    [
        ("tail_rows", ",slices=2", True),  # the second slice straddles the end
        ("tail_rows", ",slices=4", True),
        ("tail_rows", "", False),
        ("short_view", ",slices=2", True),  # a slice wholly past the end (was a view of size -3)
        ("short_view", ",slices=4", True),
        ("short_view", "", False),
        ("grid_tail", ",slices=2", True),  # anchor pid * 16: core 1 straddles, then wholly past
        ("grid_tail", "", False),
        ("two_dim_tail", "", True),  # hinted: columns and rows, both straddle
        ("two_dim_tail", ",slices=2", True),
    ],
)
def test_tail_tiles_stay_masked_in_every_slice(name, options, tiled, tmp_path):
    """Valid rows of a slice that straddles the view's end are loaded and stored (they came out 0),
    a slice wholly past the end is all masked (it was invalid IR): every stage, the bundle and the
    unrolled tiles equal the source and NumPy, and no element past a view's end is written."""
    args = tail_inputs(name)
    module = only_in(TAILS, name)
    source = run(module, name, args)
    np.testing.assert_array_equal(source["out"], _tail_oracle(name, args)["out"], err_msg="source kernel")
    unrolled = module.clone()
    slices = "{slices=" + options.split("=")[1] + "}" if options else ""
    stages = [s.replace("spyre-coarse-tile", f"spyre-coarse-tile{slices}") for s in STAGES]
    for stage in stages:
        spyre_mlir.PassManager.parse(stage).run(module)
        assert_same(run(module, name, args), source, f"after {stage}")
    assert bool(nests(module)) == tiled
    spyre_mlir.PassManager.parse(f'spyre-emit-bundle{{out-dir="{tmp_path}" format=ktir}}').run(module)
    assert ("scf.for" in (tmp_path / "bundle.mlir").read_text()) == tiled
    assert_same(run(tmp_path / "bundle.mlir", "sdsc_bundle", args), source, "the bundle")
    spyre_mlir.PassManager.parse(",".join([*stages, "spyre-unroll-loops"])).run(unrolled)
    assert_same(run(unrolled, name, args), source, "unrolled")


def test_tail_tile_views_are_per_slice():
    """A tile that may run past its view's end gets the view's remaining extent from the slice
    origin, max(0, size - origin) (a dynamic size); a tile inside its view keeps one static size."""
    module = only_in(TAILS, "tail_rows")
    spyre_mlir.PassManager.parse("ktdp-extract-compute-groups,spyre-coarse-tile{slices=2}").run(module)
    views = [op for op in module.walk() if isinstance(op, ConstructMemoryViewOp) and isinstance(op.parent_op(), LoopOp)]
    sizes = sorted((len(v.sizes), list(v.static_sizes.get_values())[1]) for v in views)
    assert [n for n, _ in sizes] == [0, 1, 1]  # y (16 rows, inside) static; x and out (13 rows) per slice
    static = next(v for v in views if not v.sizes)
    assert list(static.static_sizes.get_values()) == [8, 64]
    text = ir.print_ir(module, local_scope=True)
    assert text.count("affine_map<(d0) -> (d0 * -8 + 13)>") == 2 and text.count("arith.maxsi") == 2


def _strict(module_or_path, func: str, args: dict) -> dict:
    from spyre_mlir.interpreter import InterpreterOptions

    out = spyre_mlir.interpret(module_or_path, func, options=InterpreterOptions(mask_out_of_bounds=False), **{k: v.copy() for k, v in args.items()})
    return {k: np.asarray(v) for k, v in out.items()}


@pytest.mark.parametrize("name", ["flat", "two_dims", "broadcast_reduce", "grid_no_tail"])
def test_kernels_without_tails_run_strict(name, tmp_path):
    """Without a tail every access of every slice is inside its view: the bundle runs in strict
    mode (out-of-view accesses are errors) and equals the source, also with a per-slice view size
    (a non-constant anchor, `grid_no_tail`)."""
    if name == "grid_no_tail":
        text = ir.print_ir(only_in(TAILS, "grid_tail")).replace("20x64", "32x64").replace("-d0 + 19", "-d0 + 31").replace("sizes: [20, 64]", "sizes: [32, 64]")
        module = spyre_mlir.parse(text)
        func = "grid_tail"
        args = {"x": np.random.default_rng(7).standard_normal((32, 64)).astype(F32), "out": np.zeros((32, 64), F32)}
    else:
        module, func, args = only(name), name, inputs(name, seed=7)
    source = _strict(module, func, args)
    spyre_mlir.PassManager.from_pipeline(f"ktir-to-bundle{{out-dir={tmp_path},format=ktir,slices=2}}").run(module)
    assert "scf.for" in (tmp_path / "bundle.mlir").read_text()
    assert_same(_strict(tmp_path / "bundle.mlir", "sdsc_bundle", args), source, "the bundle, strict")
    if name == "grid_no_tail":
        assert "arith.maxsi" in (tmp_path / "bundle.mlir").read_text() or any(
            "arith.maxsi" in json.loads(p.read_text())["ktir"] for p in tmp_path.glob("sdsc_*.json")
        )


def test_the_target_lx_size_drives_the_automatic_tiling():
    """A kernel's `spyre.target` LX size is what the working set must fit, as `lx-bytes=` says."""
    from spyre_mlir.dialects.spyre import TARGET_ATTR
    from spyre_mlir.target import SPYRE, set_target

    text = (REPO / "test" / "lit" / "passes" / "bundle" / "spyre-coarse-tile.mlir").read_text()
    tiled_by_target = 0
    for chunk in text.split("\n// -----\n"):
        by_option = spyre_mlir.parse(chunk)
        spyre_mlir.PassManager.parse("ktdp-extract-compute-groups,spyre-coarse-tile{lx-bytes=1024}").run(by_option)
        by_target = spyre_mlir.parse(chunk)
        set_target(by_target, SPYRE.replace(lx_bytes=1024))
        spyre_mlir.PassManager.parse("ktdp-extract-compute-groups,spyre-coarse-tile").run(by_target)
        by_target.attributes.pop(TARGET_ATTR)
        assert ir.print_ir(by_target) == ir.print_ir(by_option)
        untiled = spyre_mlir.parse(chunk)
        spyre_mlir.PassManager.parse("ktdp-extract-compute-groups,spyre-coarse-tile").run(untiled)
        tiled_by_target += ir.print_ir(untiled) != ir.print_ir(by_target)
    assert tiled_by_target  # some group fits the default LX but not 1024 bytes

"""What spyre-emit-bundle writes into its out-dir (issue 18, items 6 and 8).

- A bundle written over an older one leaves none of the older one's SDSC
  files beside it: the `sdsc_N.json` files an emitter wrote (our "format")
  that the new bundle does not execute are removed; other files are never
  touched.
- `bundle.mlir` is read by upstream MLIR with unregistered dialects allowed
  (`iree-opt --allow-unregistered-dialect`): what upstream MLIR does not know
  (ktdp ops the kernel keeps, sdscbundle) is printed in generic form there.
"""

from __future__ import annotations

import json
import subprocess

import numpy as np
import pytest
from conftest import CORPUS, REPO

import spyre_mlir

TILING = REPO / "test" / "unit" / "kernels" / "tiling"


def only(path, name: str):
    module = spyre_mlir.parse(path)
    for op in list(module.body.block.ops):
        if getattr(op, "sym_name", None) is not None and op.sym_name.data != name:
            op.detach()
            op.erase()
    return module


def emit(module, out_dir, options: str = " format=ktir") -> None:
    """Our private format (format=ktir) unless `options` say otherwise: these tests are about it;
    torch-spyre's (the default) is tested in test_superdsc_bundle.py."""
    spyre_mlir.PassManager.from_pipeline(f"ktir-to-bundle{{out-dir={out_dir}{options}}}").run(module)


def test_rewriting_a_bundle_removes_the_older_sdsc_files(tmp_path):
    kernels = TILING / "kernels.mlir"
    emit(only(kernels, "two_groups"), tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bundle.mlir", "sdsc_0.json", "sdsc_1.json"]
    (tmp_path / "notes.txt").write_text("mine\n")
    (tmp_path / "sdsc_7.json").write_text('{"format": "someone-else/1"}\n')  # not ours: kept
    (tmp_path / "sdsc_8.json").write_text("not json\n")  # not ours: kept
    emit(only(kernels, "flat"), tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "bundle.mlir",
        "notes.txt",
        "sdsc_0.json",
        "sdsc_7.json",
        "sdsc_8.json",
    ]
    assert json.loads((tmp_path / "sdsc_0.json").read_text())["group"] == "local_schedule_0"
    assert (tmp_path / "notes.txt").read_text() == "mine\n"
    # The new bundle runs and computes its kernel.
    rng = np.random.default_rng(0)
    args = {k: rng.standard_normal(512).astype(np.float32) for k in ("x", "y", "z")}
    out = spyre_mlir.interpret(tmp_path / "bundle.mlir", "sdsc_bundle", **{k: v.copy() for k, v in args.items()})
    np.testing.assert_array_equal(np.asarray(out["z"]), args["x"] + args["y"])


def bundle_sources():
    found = [pytest.param(REPO / "examples" / "softmax_rows.mlir", None, id="example-softmax_rows")]
    found += [pytest.param(TILING / "seed000_add_mul.mlir", None, id="seed000_add_mul")]
    found += [pytest.param(TILING / "kernels.mlir", "two_groups", id="tiling-two_groups")]
    found += [pytest.param(TILING / "positions.mlir", "both_indices", id="tiling-both_indices")]
    if CORPUS.is_dir():
        found += [pytest.param(p, None, id=p.stem) for p in sorted(CORPUS.glob("*.mlir"))]
    return found


SUPERDSC_KERNELS = REPO / "test" / "unit" / "kernels" / "superdsc"


@pytest.mark.parametrize("path", sorted(SUPERDSC_KERNELS.glob("*.mlir")), ids=lambda p: p.stem)
def test_superdsc_bundle_is_read_by_upstream_mlir(path, tmp_path):
    from conftest import find_iree_opt

    iree_opt = find_iree_opt()
    if iree_opt is None:
        pytest.skip("iree-opt (iree-base-compiler) is not installed")
    emit(spyre_mlir.parse(path), tmp_path, " format=superdsc")
    done = subprocess.run(
        [iree_opt, "--allow-unregistered-dialect", str(tmp_path / "bundle.mlir")], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert "sdscbundle.sdsc_execute" in done.stdout and "!sdscbundle.input_arg<index>" in done.stdout
    spyre_mlir.parse(tmp_path / "bundle.mlir")


@pytest.mark.parametrize("path, name", bundle_sources())
def test_bundle_is_read_by_upstream_mlir(path, name, tmp_path):
    from conftest import find_iree_opt

    iree_opt = find_iree_opt()
    if iree_opt is None:
        pytest.skip("iree-opt (iree-base-compiler) is not installed")
    module = only(path, name) if name else spyre_mlir.parse(path)
    emit(module, tmp_path)
    bundle = tmp_path / "bundle.mlir"
    done = subprocess.run([iree_opt, "--allow-unregistered-dialect", str(bundle)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "sdscbundle.sdsc_execute" in done.stdout
    spyre_mlir.parse(bundle)  # and still ours (the corpus bundles' results: test_spyre_coarse_tile.py)


@pytest.mark.parametrize(
    ("expr", "expected"),
    [
        ("s0 + d0 * 256 + d1 * 2 + 7", (7, [256, 2], 1)),
        ("s0 + (d0 * 4) floordiv 2", (0, [2], 1)),
        ("s0 + d0 mod 8", None),  # equal to s0 + d0 at every point a probe tried before: not linear
        ("s0 + d0 floordiv 4", None),
    ],
)
def test_tile_address_is_linear_only_when_its_map_is(expr, expected):
    from xdsl.context import Context
    from xdsl.dialects import affine
    from xdsl.dialects.builtin import AffineMapAttr, IndexType
    from xdsl.parser import Parser
    from xdsl.utils.test_value import create_ssa_value

    from spyre_mlir.passes.bundle.spyre_emit_bundle import _linear

    dims = 2 if "d1" in expr else 1
    amap = Parser(
        Context(), f"affine_map<({', '.join(f'd{i}' for i in range(dims))})[s0] -> ({expr})>"
    ).parse_attribute()
    assert isinstance(amap, AffineMapAttr)
    apply = affine.ApplyOp([create_ssa_value(IndexType()) for _ in range(dims + 1)], amap)
    assert _linear(apply, dims) == expected

"""What we print parses in real upstream MLIR (iree-base-compiler's bindings).

Upstream ops are printed in their custom form and checked by MLIR's own
parsers and verifiers; our dialects are printed generically and read as
unregistered. MLIR's re-print is read back and compared structurally.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO, corpus_params, upstream_parse
from xdsl.dialects.builtin import AffineMapAttr, AffineSetAttr, ArrayAttr
from xdsl.ir.affine import AffineMap

import spyre_mlir
from spyre_mlir import ir

IREE_OPT = shutil.which("iree-opt", path=str(Path(sys.executable).parent)) or shutil.which("iree-opt")
pytestmark = pytest.mark.skipif(IREE_OPT is None, reason="iree-opt (iree-base-compiler) not installed")

OURS = tuple(ir.SPYRE_DIALECTS)  # every dialect of ours, dataflow-scheduler's included


def _canonical(attr):
    """Affine maps/sets in MLIR's canonical (flattened) form: MLIR reorders
    `d2 + d0` to `d0 + d2` when it reads an affine attribute."""
    if isinstance(attr, AffineMapAttr):
        m = attr.data
        return AffineMap(m.num_dims, m.num_symbols, tuple(r.simplify(m.num_dims, m.num_symbols) for r in m.results))
    if isinstance(attr, AffineSetAttr):
        s = attr.data
        return tuple(
            (c.kind, (c.lhs - c.rhs).simplify(s.num_dims, s.num_symbols)) for c in s.constraints
        )
    if isinstance(attr, ArrayAttr):
        return tuple(_canonical(a) for a in attr.data)
    return attr


def _summary(module) -> list:
    return [
        (
            op.name,
            {k: _canonical(v) for k, v in op.properties.items()},
            {k: _canonical(v) for k, v in op.attributes.items()},
            [o.type for o in op.operands],
            [r.type for r in op.results],
            [len(r.blocks) for r in op.regions],
        )
        for op in module.walk()
    ]


def check_against_mlir(module, allow_unregistered: bool = False) -> None:
    text = ir.print_ir(module, generic_dialects=OURS)
    back = upstream_parse(text)
    again = ir.parse_module(back, "<iree-opt>", ir.make_context(allow_unregistered=allow_unregistered))
    assert _summary(again) == _summary(module), "MLIR read something else than we printed"


# Named elementwise ops that upstream MLIR has since removed (in favour of
# linalg.elementwise / linalg.generic) but KTIR still writes; we read and print
# them faithfully, and check them against MLIR in their generic-op form.
REMOVED_UPSTREAM = {"linalg.add", "linalg.sub", "linalg.mul", "linalg.div", "linalg.max", "linalg.min"}


def for_upstream(module):
    if any(op.name in REMOVED_UPSTREAM for op in module.walk()):
        spyre_mlir.PassManager.parse("linalg-generalize-named-ops").run(module)
        assert not any(op.name in REMOVED_UPSTREAM for op in module.walk())
    return module


@pytest.mark.parametrize("path", corpus_params(include_inter_tile=True))
def test_corpus_parses_in_mlir(path):
    check_against_mlir(for_upstream(spyre_mlir.parse(path)))


@pytest.mark.parametrize("path", corpus_params(include_inter_tile=True))
def test_corpus_after_default_pipeline_parses_in_mlir(path):
    module = spyre_mlir.parse(path)
    spyre_mlir.PassManager.from_pipeline("default").run(module)
    check_against_mlir(for_upstream(module))


@pytest.mark.parametrize("path", corpus_params(include_inter_tile=True))
def test_fully_generic_form_parses_in_mlir(path):
    upstream_parse(ir.print_ir(for_upstream(spyre_mlir.parse(path)), generic=True))


INTER_TILE_PUBLIC = sorted((REPO / "test" / "unit" / "kernels" / "inter_tile_public").glob("*.mlir"))


@pytest.mark.parametrize("path", INTER_TILE_PUBLIC, ids=lambda p: p.name)
def test_inter_tile_public_kernels_parse_in_mlir(path):
    """The tile_future type goes through real MLIR quoted, `!ktdp<"tile_future<...>">`."""
    check_against_mlir(for_upstream(spyre_mlir.parse(path)))


LIT_INPUTS = sorted((REPO / "test" / "lit").rglob("*.mlir"))


@pytest.mark.parametrize(
    "path", [p for p in LIT_INPUTS if "invalid" not in p.name and "Inputs" not in p.parts], ids=lambda p: p.name
)
def test_lit_inputs_parse_in_mlir(path: Path):
    """Our own lit inputs (split, valid ones), printed by us, parse upstream."""
    text = path.read_text()
    unregistered = "--allow-unregistered-dialect" in text
    for chunk in re.split(r"^// -----[ \t]*$", text, flags=re.MULTILINE):
        if "expected-error" in chunk:
            continue  # meant to fail: the lit test checks the diagnostic
        module = ir.parse_module(chunk, str(path), ir.make_context(allow_unregistered=unregistered))
        ir.verify(module)  # any other chunk must parse and verify
        if _OPAQUE_ELEMENTS.search(ir.print_ir(module, local_scope=True)):
            continue  # MLIR reads a memref/vector only of types it knows the element interface of
        check_against_mlir(for_upstream(module), unregistered)


# A memref or vector of one of our types: upstream MLIR, which reads our
# types as opaque, refuses it ("invalid memref element type").
_OPAQUE_ELEMENTS = re.compile(r"\b(?:memref|vector)<[^<>]*x!(?:" + "|".join(OURS) + r")\.")


def test_reduce_short_form_means_what_mlir_means():
    """MLIR builds `linalg.reduce { arith.subf }` as subf(%init, %in)."""
    src = """
    func.func @f(%x: tensor<4x8xf32>, %i: tensor<4xf32>) -> tensor<4xf32> {
      %r = linalg.reduce { arith.subf } ins(%x : tensor<4x8xf32>) outs(%i : tensor<4xf32>) dimensions = [1]
      return %r : tensor<4xf32>
    }"""
    ours = spyre_mlir.parse(src)
    theirs = spyre_mlir.parse(upstream_parse(src))
    assert theirs.is_structurally_equivalent(ours)


# What MLIR prints, we print the same: upstream MLIR's print of this input,
# read and printed by us, is the same text (module/return without prefix,
# #map/#set aliases, i64 array elements untyped, func declarations,
# affine.apply #map(..), memref casts and string memory spaces, generic
# unregistered ops, a group of results `%0:2` used as `%0#1`).
MLIR_PRINTED = """
func.func private @decl(i32, f32)
func.func @f(%x: index, %n: index, %m: memref<96x64xf16>) -> index attributes {grid = [2, 2], tags = [1.5, 2 : i32]} {
  %c0 = arith.constant 0 : index
  %a = affine.apply affine_map<(d0) -> (d0 + 1)>(%x)
  %b = affine.apply affine_map<()[s0] -> (s0 * 2)>()[%a]
  %c = arith.constant 1 : i32
  %d = arith.constant 1.0 : f32
  scf.for %i = %c0 to %n step %x {
    func.call @decl(%c, %d) : (i32, f32) -> ()
  }
  "test.op"() {s = affine_set<(d0) : (d0 >= 0)>, m = affine_map<(d0) -> (d0 + 1)>} : () -> ()
  func.call @decl(%c, %d) : (i32, f32) -> ()
  %ms = memref.memory_space_cast %m : memref<96x64xf16> to memref<96x64xf16, "DDR">
  %r = memref.reinterpret_cast %ms to offset: [0], sizes: [1, 64], strides: [64, 1] : memref<96x64xf16, "DDR"> to memref<1x64xf16, strided<[64, 1]>, "DDR">
  %k = memref.cast %r : memref<1x64xf16, strided<[64, 1]>, "DDR"> to memref<1x64xf16, strided<[64, 1], offset: ?>, "DDR">
  %l = memref.alloc() : memref<1x64xf16, "L1">
  %g:2 = "test.pair"() : () -> (i32, i32)
  "test.use"(%g#1, %g#0) : (i32, i32) -> ()
  return %b : index
}
module @inner {
}
"""


def test_we_print_what_mlir_prints():
    theirs = upstream_parse_custom(MLIR_PRINTED)
    module = ir.parse_module(theirs, "<iree-opt>", ir.make_context(allow_unregistered=True))
    assert ir.print_ir(module).rstrip("\n") == theirs.rstrip("\n")


def upstream_parse_custom(text: str) -> str:
    """Run real MLIR and return its custom-form print."""
    proc = subprocess.run(
        [IREE_OPT, "--allow-unregistered-dialect", "-"], input=text, capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout

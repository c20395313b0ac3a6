"""The Python API: spyre_mlir.parse and spyre_mlir.PassManager."""

from __future__ import annotations

import pytest

import spyre_mlir
from spyre_mlir import ir
from spyre_mlir.dialects import ktdp

KERNEL = """
func.func @k(%x: index) attributes {grid = [2]} {
  %id = ktdp.get_compute_tile_id : index
  %v = ktdp.construct_memory_view %x, sizes: [2, 8], strides: [8, 1] {
    coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 1 >= 0, d1 >= 0, -d1 + 7 >= 0)>,
    memory_space = #ktdp.memory_space<global>} : memref<2x8xf16>
  %t = ktdp.construct_access_tile %v[%id, 0] {
    access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 >= 0, d1 >= 0, -d1 + 7 >= 0)>,
    access_tile_order = affine_map<(d0, d1) -> (d0, d1)>} : memref<2x8xf16> -> !ktdp.access_tile<1x8xindex>
  %d = ktdp.load %t : !ktdp.access_tile<1x8xindex> -> tensor<1x8xf16>
  %e = tensor.expand_shape %d [[0], [1, 2]] output_shape [1, 8, 1] : tensor<1x8xf16> into tensor<1x8x1xf16>
  %c = tensor.collapse_shape %e [[0], [1, 2]] : tensor<1x8x1xf16> into tensor<1x8xf16>
  %t2 = ktdp.construct_access_tile %v[%id, 0] {
    access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 >= 0, d1 >= 0, -d1 + 7 >= 0)>,
    access_tile_order = affine_map<(d0, d1) -> (d0, d1)>} : memref<2x8xf16> -> !ktdp.access_tile<1x8xindex>
  ktdp.store %c, %t2 : tensor<1x8xf16>, !ktdp.access_tile<1x8xindex>
  return
}
"""


def test_parse_text_and_path(tmp_path):
    module = spyre_mlir.parse(KERNEL)
    assert sum(isinstance(op, ktdp.ConstructAccessTileOp) for op in module.walk()) == 2
    f = tmp_path / "k.mlir"
    f.write_text(KERNEL)
    assert ir.print_ir(spyre_mlir.parse(f)) == ir.print_ir(module)
    assert ir.print_ir(spyre_mlir.parse(str(f))) == ir.print_ir(module)


def test_parse_errors_are_located():
    lines = KERNEL.splitlines()
    t2 = next(i for i, line in enumerate(lines) if "%t2 =" in line)
    lines[t2 + 1] = lines[t2 + 1].replace("-d1 + 7", "-d1 + 3")
    with pytest.raises(spyre_mlir.DiagnosticError) as info:
        spyre_mlir.parse("\n".join(lines))
    d = info.value.diagnostic
    assert (d.location.line, d.location.col) == (t2 + 1, 3)
    assert "result shape 1x8 does not match the access_tile_set box 1x4" in d.message
    assert d.render().startswith(f"<string>:{t2 + 1}:3: error: 'ktdp.construct_access_tile' op")


def test_missing_file_is_a_diagnostic(tmp_path):
    with pytest.raises(spyre_mlir.DiagnosticError) as info:
        spyre_mlir.parse(tmp_path / "nope.mlir")
    assert info.value.diagnostic.message.startswith(f"cannot read '{tmp_path / 'nope.mlir'}': No such file")


def test_pass_manager_parse_and_run():
    module = spyre_mlir.parse(KERNEL)
    pm = spyre_mlir.PassManager.parse("spyre-fold-reshapes,cse,canonicalize")
    assert pm.names == ["spyre-fold-reshapes", "cse", "canonicalize"]
    pm.run(module)
    names = [op.name for op in module.walk()]
    assert "tensor.expand_shape" not in names and "tensor.collapse_shape" not in names
    # CSE merged the two identical (pure) access tiles.
    assert names.count("ktdp.construct_access_tile") == 1
    assert names.count("ktdp.store") == 1 and names.count("ktdp.load") == 1


def test_pass_manager_from_pipeline_and_hooks():
    seen = []
    pm = spyre_mlir.PassManager.from_pipeline("default")
    assert pm.names == ["ktdp-normalize-memory-space", "spyre-fold-reshapes", "cse", "canonicalize"]
    module = spyre_mlir.parse(KERNEL)
    pm.after_pass.append(lambda p, m, t: seen.append((p.name, m is module, t >= 0)))
    pm.run(module)
    assert seen == [(name, True, True) for name in pm.names]
    names = [op.name for op in module.walk()]  # the pipeline did its work
    assert "tensor.collapse_shape" not in names and names.count("ktdp.construct_access_tile") == 1


@pytest.mark.parametrize(
    "spec, message",
    [("no-such-pass", "unknown pass 'no-such-pass'"), ("cse{", "invalid pass pipeline"),
     ("cse{bogus=1}", "invalid options for pass 'cse'")],
)
def test_pass_manager_errors(spec, message):
    with pytest.raises(spyre_mlir.DiagnosticError, match=None) as info:
        spyre_mlir.PassManager.parse(spec)
    assert message in info.value.diagnostic.message


def test_unknown_pipeline():
    with pytest.raises(spyre_mlir.DiagnosticError) as info:
        spyre_mlir.PassManager.from_pipeline("nope")
    assert "available: default" in info.value.diagnostic.message


def _deep_reshapes(n: int) -> str:
    """`n` nested scf.if, the innermost with an expand/collapse round trip of %t."""
    ty = "tensor<4xf32>"
    lines = [f"func.func @deep(%c: i1, %t: {ty}) -> {ty} {{"]
    for i in range(n):
        lines.append(f"%r{i} = scf.if %c -> ({ty}) {{")
    lines.append(f"%e = tensor.expand_shape %t [[0, 1]] output_shape [4, 1] : {ty} into tensor<4x1xf32>")
    lines.append(f"%f = tensor.collapse_shape %e [[0, 1]] : tensor<4x1xf32> into {ty}")
    inner = "%f"
    for i in reversed(range(n)):
        lines += [f"scf.yield {inner} : {ty}", "} else {", f"scf.yield %t : {ty}", "}"]
        inner = f"%r{i}"
    lines += [f"return %r0 : {ty}", "}"]
    return "\n".join(lines) + "\n"


def test_pass_manager_runs_passes_on_deep_ir():
    """PassManager.run from Python (no spyre-opt around it, so no large stack of its own)
    on 2000 nested regions: the pass does its work at the innermost level, the nest stays."""
    n = 2000
    module = spyre_mlir.parse(_deep_reshapes(n))
    pm = spyre_mlir.PassManager.parse("ktdp-normalize-memory-space,spyre-fold-reshapes")
    pm.run(module)
    names = [op.name for op in module.walk()]
    assert "tensor.collapse_shape" not in names  # folded (the dead expand_shape is left for DCE)
    assert names.count("scf.if") == n
    innermost = next(op for op in module.walk() if op.name == "scf.if" and not any(
        inner.name == "scf.if" for inner in op.regions[0].walk()))
    *_, yield_op = innermost.regions[0].block.ops
    func_op = next(op for op in module.walk() if op.name == "func.func")
    assert yield_op.operands[0] is func_op.body.block.args[1]  # the round trip folded back to %t

"""Public kernels with inter-tile ops (issue 8) parse, verify, pass the legality
check and round-trip (test/unit/kernels/inter_tile_public/README.md)."""

from __future__ import annotations

from pathlib import Path

import pytest

import spyre_mlir
from spyre_mlir import ir

PUBLIC = Path(__file__).parent / "kernels" / "inter_tile_public"
KERNELS = sorted(PUBLIC.glob("*.mlir"))


@pytest.mark.parametrize("path", KERNELS, ids=lambda p: p.name)
def test_public_kernel_parses_verifies_and_is_legal(path):
    module = spyre_mlir.parse(path)
    ops = {op.name for op in module.walk()}
    assert "ktdp.inter_tile_produce" in ops
    printed = ir.print_ir(module)
    spyre_mlir.PassManager.parse("ktdp-check-inter-tile").run(module)
    assert ir.print_ir(module) == printed  # the check changes nothing
    assert ir.print_ir(spyre_mlir.parse(printed)) == printed
    generic = ir.print_ir(module, generic=True)
    assert ir.print_ir(spyre_mlir.parse(generic)) == printed


def test_all_public_kernels_present():
    assert len(KERNELS) == 5


OURS = sorted((Path(__file__).parent / "kernels" / "inter_tile").glob("*.mlir"))


@pytest.mark.parametrize("path", OURS, ids=lambda p: p.name)
def test_our_inter_tile_kernels_parse_verify_and_are_legal(path):
    module = spyre_mlir.parse(path)
    assert any(op.name == "ktdp.inter_tile_produce" for op in module.walk())
    spyre_mlir.PassManager.parse("ktdp-check-inter-tile").run(module)
    spyre_mlir.parse(ir.print_ir(module))  # what we print reads back

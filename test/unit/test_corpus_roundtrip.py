"""Every corpus kernel parses unchanged, verifies, and round-trips in both forms."""

from __future__ import annotations

import pytest
from conftest import corpus_params

import spyre_mlir
from spyre_mlir import ir


@pytest.mark.parametrize("path", corpus_params(include_inter_tile=True))
def test_custom_form_round_trips(path):
    module = spyre_mlir.parse(path)
    printed = ir.print_ir(module)
    assert ir.print_ir(spyre_mlir.parse(printed)) == printed


@pytest.mark.parametrize("path", corpus_params(include_inter_tile=True))
def test_generic_form_round_trips(path):
    module = spyre_mlir.parse(path)
    generic = ir.print_ir(module, generic=True)
    assert '"ktdp.' in generic  # really generic
    reparsed = spyre_mlir.parse(generic)
    assert ir.print_ir(reparsed, generic=True) == generic
    # ...and means the same as the custom form.
    assert ir.print_ir(reparsed) == ir.print_ir(module)


@pytest.mark.parametrize("path", corpus_params(include_inter_tile=True))
def test_the_default_pipeline_keeps_it_valid(path):
    module = spyre_mlir.parse(path)
    spyre_mlir.PassManager.from_pipeline("default").run(module)
    assert ir.print_ir(spyre_mlir.parse(ir.print_ir(module))) == ir.print_ir(module)

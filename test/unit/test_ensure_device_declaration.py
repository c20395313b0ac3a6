"""ensure-device-declaration (passes/schedule/ensure_device_declaration.py): a module without a
ktdf_arch.device declares the one of a file; upstream's own test inputs and messages."""

from __future__ import annotations

import pytest
from conftest import SHARED

import spyre_mlir
from spyre_mlir.diagnostics import DiagnosticError
from spyre_mlir.dialects.ktdf_arch import devices_in
from spyre_mlir.ir import print_ir
from spyre_mlir.target import target_of

THEIRS = SHARED / "corpus" / "dataflow-scheduler" / "test"
SAMPLE_DEVICE = THEIRS / "Dialect" / "KTDFArch" / "sample_device.mlir"
INPUTS = THEIRS / "Transforms" / "EnsureDeviceDeclaration" / "Inputs"
needs_corpus = pytest.mark.skipif(not SAMPLE_DEVICE.is_file(), reason="../shared/corpus/dataflow-scheduler not present")

CARD = """\
ktdf_arch.device @card {
  group share() {
    %lx = memory {kind = "LX", size = 4096}
  }
}
"""


def _run(module, **options):
    spec = " ".join(f"{k.replace('_', '-')}={v}" for k, v in options.items())
    return spyre_mlir.PassManager.parse(f"ensure-device-declaration{{{spec}}}" if spec else "ensure-device-declaration").run(module)


def test_declares_the_files_device(tmp_path):
    card = tmp_path / "card.mlir"
    card.write_text(CARD)
    module = _run(spyre_mlir.parse("func.func @k() {\n  return\n}\n"), device_filename=card)
    (device,) = devices_in(module)
    assert device is module.body.block.first_op
    assert print_ir(device) == f'ktdf_arch.device @card import("{card}")\n'
    assert target_of(module).lx_bytes == 4096  # and it is the module's target
    # Run again: nothing changes.
    assert print_ir(_run(module, device_filename=card)) == print_ir(module)


def test_a_module_with_a_device_keeps_it(tmp_path):
    card = tmp_path / "card.mlir"
    card.write_text(CARD.replace("@card", "@other"))
    module = spyre_mlir.parse(CARD)
    before = print_ir(module)
    assert print_ir(_run(module, device_filename=card)) == before


def test_the_declared_device_is_read(tmp_path):
    kernel = tmp_path / "k.mlir"
    kernel.write_text('ktdf_arch.device @card import("missing.mlir")\n')
    with pytest.raises(DiagnosticError) as info:
        _run(spyre_mlir.parse(kernel))
    assert info.value.diagnostic.message == (
        f"'ktdf_arch.device' op unable to import device graph: cannot open input file '{tmp_path}/missing.mlir': "
        "No such file or directory")
    assert str(info.value.diagnostic.location) == f"{kernel}:1:1"


def test_no_device_and_no_file_is_an_error():
    with pytest.raises(DiagnosticError, match="no 'ktdf_arch.device' is present in the module and no device file "
                                              "name is provided to ensure-device-declaration pass"):
        _run(spyre_mlir.parse("module {\n}\n"))


@needs_corpus
def test_their_sample_device():
    module = _run(spyre_mlir.parse("module {\n}\n"), device_filename=SAMPLE_DEVICE)
    assert f'ktdf_arch.device @sample_device import("{SAMPLE_DEVICE}")' in print_ir(module)
    named = _run(spyre_mlir.parse("module {\n}\n"), device_filename=INPUTS / "multiple-devices.mlir", device_name="second")
    assert f'ktdf_arch.device @second import("{INPUTS / "multiple-devices.mlir"}")' in print_ir(named)


@needs_corpus
@pytest.mark.parametrize(("options", "message"), [
    ({"device_filename": INPUTS / "does-not-exist.mlir"}, "unable to import device: cannot open input file '{path}'"),
    ({"device_filename": INPUTS / "not-mlir.mlir"}, "{path}:1:1: error: "),
    ({"device_filename": INPUTS / "no-device.mlir"}, "no device in import file '{path}'"),
    ({"device_filename": INPUTS / "multiple-devices.mlir"}, "multiple devices in import file '{path}'"),
    ({"device_filename": SAMPLE_DEVICE, "device_name": "nonexistent"},
     "'ktdf_arch.device' op unable to import device graph: no device named 'nonexistent'"),
])
def test_their_failures(options, message):
    with pytest.raises(DiagnosticError) as info:
        _run(spyre_mlir.parse("module {\n}\n"), **options)
    assert info.value.diagnostic.message.startswith(message.format(path=options["device_filename"]))

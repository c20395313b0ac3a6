"""ensure-device-declaration: the module declares the device it is scheduled for.

dataflow-scheduler's pass of the same name and options
(../shared/corpus/dataflow-scheduler/test/Transforms/EnsureDeviceDeclaration):

- a module that declares a `ktdf_arch.device` keeps it; the device is read
  (its `import(...)` resolved, docs/ktdf_arch.md), so a declaration that
  cannot be read is an error here rather than in a later pass;
- otherwise, with `device-filename=FILE`, the pass declares
  `ktdf_arch.device @NAME import("FILE")` at the top of the module, NAME
  being `device-name`, else the one device of FILE;
- otherwise it fails: the module has no device and none was given.

Messages are upstream's. The declared path is made absolute, so that it is
read from the same file wherever the output goes (upstream keeps it as
written, relative to the current directory). The device is then the
module's target (docs/target.md).

Before (`-p 'ensure-device-declaration{device-filename=card.mlir}'`):

    module {
    }

After:

    module {
      ktdf_arch.device @card import("/abs/path/card.mlir")
    }
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from spyre_mlir.diagnostics import error
from spyre_mlir.dialects.ktdf_arch import DeviceImportError, DeviceOp, devices_in, import_device, read_device_file


@dataclass(frozen=True)
class EnsureDeviceDeclarationPass(ModulePass):
    """Declare a device in a module that has none (see module docstring)."""

    name = "ensure-device-declaration"

    device_filename: str | None = None
    """The MLIR file of the device to declare when the module declares none."""
    device_name: str | None = None
    """The device of that file to declare (unset: its only one)."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        declarations = devices_in(op)
        if not declarations:
            declarations = [self._declare(op)]
        for declaration in declarations:  # as upstream's DeviceManager: each declared device is read
            try:
                import_device(declaration)
            except DeviceImportError as exc:
                raise error(exc.op or declaration, f"'ktdf_arch.device' op {exc}") from None

    def _declare(self, module: ModuleOp) -> DeviceOp:
        if not self.device_filename:
            raise error(
                module,
                "no 'ktdf_arch.device' is present in the module and no device file name is provided to "
                "ensure-device-declaration pass",
            )
        name = self.device_name
        if not name:
            if not os.path.isfile(self.device_filename):
                raise error(module, f"unable to import device: cannot open input file '{self.device_filename}'")
            try:
                name = read_device_file(self.device_filename).device_name
            except DeviceImportError as exc:  # no device, several, or a bad file (located in it)
                raise error(module, str(exc)) from None
        declaration = DeviceOp(name, import_path=os.path.abspath(self.device_filename))
        block = module.body.block
        if block.first_op is None:
            block.add_op(declaration)
        else:
            block.insert_op_before(declaration, block.first_op)
        return declaration

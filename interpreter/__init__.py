"""The NumPy reference interpreter for KTIR kernels (see docs/interpreter.md).

    import spyre_mlir
    out = spyre_mlir.interpret("kernel.mlir", "add_kernel", x_ptr=x, y_ptr=y, output_ptr=z, BLOCK_SIZE=128)
"""

from __future__ import annotations

import importlib as _importlib
import pkgutil as _pkgutil

from spyre_mlir.interpreter.api import Interpreter, InterpretResult, RunReport, interpret
from spyre_mlir.interpreter.cost import CostEstimate, HardwareConfig
from spyre_mlir.interpreter.dtypes import bf16_bits_to_float32, float32_to_bf16_bits, round_to_bf16
from spyre_mlir.interpreter.errors import InterpreterWarning
from spyre_mlir.interpreter.runtime import DEFAULT_LX_BYTES, DEFAULT_MEMORY_LIMIT, MAX_CALL_DEPTH, InterpreterOptions

__all__ = [
    "CostEstimate",
    "DEFAULT_LX_BYTES",
    "DEFAULT_MEMORY_LIMIT",
    "HardwareConfig",
    "MAX_CALL_DEPTH",
    "InterpretResult",
    "Interpreter",
    "InterpreterOptions",
    "InterpreterWarning",
    "RunReport",
    "bf16_bits_to_float32",
    "float32_to_bf16_bits",
    "interpret",
    "round_to_bf16",
]

# The op handlers, one module per dialect (ops_<dialect>.py), register
# themselves with the decoder, and what else their IR adds with the plug-ins
# (plugins.py), when imported: every such module is.
for _module in sorted(m.name for m in _pkgutil.iter_modules(__path__) if m.name.startswith("ops_")):
    _importlib.import_module(f"{__name__}.{_module}")

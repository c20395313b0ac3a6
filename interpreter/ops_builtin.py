"""builtin: the module, which holds the functions the interpreter runs."""

from __future__ import annotations

from xdsl.dialects.builtin import ModuleOp

from spyre_mlir.interpreter.core import not_executable

not_executable({ModuleOp: "the container of the functions (core.Program finds them in it)"})

"""spyre-mlir: an xDSL-based MLIR toolchain for IBM's Spyre AI accelerator.

Public API (see README, "Python API"):

    spyre_mlir.parse(text_or_path) -> ModuleOp
    spyre_mlir.PassManager.parse("cse,canonicalize") / .from_pipeline("default"); .run(module)
    spyre_mlir.interpret(module_or_text_or_path, func, hbm=None, **args) -> dict[str, np.ndarray]
    spyre_mlir.canonical_bytes(module) -> bytes; spyre_mlir.identity(module) -> "sha256:<hex>"

Imports are lazy so that `spyre-opt` starts quickly.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

# The subpackages dialects/, passes/, tools/ and interpreter/ are top-level
# folders of the source tree, mapped into this package by pyproject.toml's
# package-dir. When this package is imported straight from a checkout (its
# root on sys.path, e.g. `python -c ...` there), find them beside it.
_checkout = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if os.path.isfile(os.path.join(_checkout, "pyproject.toml")) and os.path.isdir(os.path.join(_checkout, "dialects")):
    __path__.append(_checkout)  # noqa: F821 - the package's own search path

if TYPE_CHECKING:
    from xdsl.dialects.builtin import ModuleOp

    from spyre_mlir.canonical import canonical_bytes, identity
    from spyre_mlir.interpreter import interpret
    from spyre_mlir.interpreter.launch import launch
    from spyre_mlir.passes.pipelines import PassManager

__all__ = ["parse", "PassManager", "interpret", "launch", "DiagnosticError", "canonical_bytes", "identity"]


def parse(text_or_path: Any, *, verify: bool = True) -> ModuleOp:
    """Parse MLIR text or a file into a verified module.

    `text_or_path`: a `pathlib.Path` is a file; a `str` is a file if one of
    that name exists, else MLIR text if it holds a newline, `{` or `(`
    (`spyre_mlir.ir.read_source`). Raises `spyre_mlir.DiagnosticError` (with
    `file:line:col`) on bad input, and for a file that cannot be read."""
    from spyre_mlir import ir
    from spyre_mlir.deep import call_deep
    from spyre_mlir.diagnostics import Diagnostic, DiagnosticError

    try:
        text, name = ir.read_source(text_or_path)
    except OSError as exc:
        hint = ""
        if isinstance(text_or_path, str) and not isinstance(exc, IsADirectoryError):
            hint = " (a string without a newline, '{' or '(' is a file name)"
        raise DiagnosticError(
            Diagnostic("error", f"cannot read '{text_or_path}': {exc.strerror or exc}{hint}")
        ) from None

    def parse_and_verify() -> ModuleOp:
        module = ir.parse_module(text, name)
        if verify:
            ir.verify(module)
        return module

    return call_deep(parse_and_verify)  # deeply nested regions recurse deeply


def __getattr__(name: str) -> Any:
    if name == "PassManager":
        from spyre_mlir.passes.pipelines import PassManager

        return PassManager
    if name == "interpret":
        from spyre_mlir.interpreter import interpret

        return interpret
    if name == "launch":  # run a compiled kernel directory as `spyre launch` does (interpreter/launch.py)
        from spyre_mlir.interpreter.launch import launch

        return launch
    if name == "DiagnosticError":
        from spyre_mlir.diagnostics import DiagnosticError

        return DiagnosticError
    if name in ("canonical_bytes", "identity"):  # in spyre_mlir.canonical (docs/identity.md)
        from spyre_mlir import canonical

        return getattr(canonical, name)
    raise AttributeError(f"module 'spyre_mlir' has no attribute {name!r}")

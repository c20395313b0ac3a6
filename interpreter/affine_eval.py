"""The affine evaluator as the interpreter uses it.

`spyre_mlir.analysis.affine` holds the one evaluator (maps in `index` arithmetic,
wrapping at 64 bits; sets exact), shared with the KTDP verifiers. Here it
raises `InterpreterError`, which the interpreter locates at the executing op.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from xdsl.ir.affine import AffineMap, AffineSet

from spyre_mlir.analysis import affine
from spyre_mlir.interpreter.errors import InterpreterError


def compile_map(amap: AffineMap) -> Callable[[Sequence, Sequence], tuple]:
    """`f(dims, syms) -> tuple of results` (`spyre_mlir.analysis.affine.compile_map`)."""
    return affine.compile_map(amap, InterpreterError)


def compile_set(aset: AffineSet) -> Callable[[Sequence, Sequence], object]:
    """`f(dims, syms) -> membership` (`spyre_mlir.analysis.affine.compile_set`)."""
    return affine.compile_set(aset, InterpreterError)

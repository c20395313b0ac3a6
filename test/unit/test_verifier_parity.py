"""Our verifier says yes exactly when upstream MLIR (iree-opt) does.

Each case is a pair: an input MLIR rejects (with the message we must give
too) and the nearest input it accepts. Both go through our parser and
verifier (`spyre_mlir.parse`) and through `iree-opt` (one batched run with
`--split-input-file`); the verdicts must agree. The lit files of the same
checks are also run through MLIR's own `--verify-diagnostics`, so that their
expectations are MLIR's, not only ours.

The one deliberate difference, an affine division by zero (MLIR accepts the
map, we refuse it where it is written), is pinned by its own test.
"""

from __future__ import annotations

import bisect
import math
import random
import re
import shutil
import subprocess
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path

import pytest
from conftest import REPO

import spyre_mlir
from spyre_mlir import ir
from spyre_mlir.diagnostics import DiagnosticError

IREE_OPT = shutil.which("iree-opt", path=str(Path(sys.executable).parent)) or shutil.which("iree-opt")
needs_mlir = pytest.mark.skipif(IREE_OPT is None, reason="iree-opt (iree-base-compiler) not installed")


@dataclass(frozen=True)
class Pair:
    name: str
    invalid: str
    valid: str
    message: str  # in MLIR's error and in ours
    unregistered: bool = False  # uses unregistered ops (`test.*`)


def _func(sig: str, body: str) -> str:
    return f"func.func @f({sig}) {{\n{textwrap.dedent(body).strip()}\n}}\n"


def _slice(src: str, args: str, dst: str, extra: str = "") -> str:
    return _func(f"%t: {src}{extra}", f"%0 = tensor.extract_slice %t{args} : {src} to {dst}\nreturn")


def _generic(body: str, out: str = "tensor<4xf32>") -> str:
    return _func(
        f"%a: tensor<4xf32>, %t: {out}",
        f"""
        %0 = linalg.generic {{indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}} ins(%a : tensor<4xf32>) outs(%t : {out}) {{
        ^bb0(%x: f32, %y: f32):
        {body}
        }} -> {out}
        return
        """,
    )


def _if(then: str, otherwise: str | None, results: str = "-> (f32)") -> str:
    else_ = f" else {{\n{otherwise}\n}}" if otherwise is not None else ""
    return _func(
        "%c: i1",
        f"""
        {"%0 = " if results else ""}scf.if %c {results} {{
        {then}
        }}{else_}
        return
        """,
    )


F1 = "%x = arith.constant 1.0 : f32\nscf.yield %x : f32"
EXTRACT_1D = "%e = tensor.extract %m[%n] : tensor<4x4xf32>"  # one index for two dims: an error in a body


def _pad(src: str, low: str, high: str, dst: str, args: str, element: str = "", extra: str = "", yield_: str = "") -> str:
    """A `tensor.pad` of `%t: src` yielding `%c` (of type `element`, else src's)."""
    element = element or src.rsplit("x", 1)[-1].rstrip(">")
    dynamic = ", %n: index" if "%n" in low + high else ""
    body = f"{extra}\n" if extra else ""
    body += yield_ or f"tensor.yield %c : {element}"
    return _func(
        f"%t: {src}, %c: {element}, %m: tensor<4x4xf32>{dynamic}" + ("" if "%n" in dynamic else ", %n: index"),
        f"%p = tensor.pad %t low{low} high{high} {{\n^bb0({args}):\n{body}\n}} : {src} to {dst}\nreturn",
    )


def _reduce_body(body: str) -> str:
    return _func(
        "%x: tensor<4x8xf16>, %i: tensor<4xf16>",
        "%b = linalg.reduce ins(%x : tensor<4x8xf16>) outs(%i : tensor<4xf16>) dimensions = [1]\n"
        f"(%in: f16, %acc: f16) {{\n%s = arith.addf %acc, %in : f16\n{body}\n}}\nreturn",
    )
I1 = "%x = arith.constant 1 : i32\nscf.yield %x : i32"


def _while(condition: str, yield_: str, after_args: str = "%b: i32") -> str:
    after = f"^bb0({after_args}):\n" if after_args else ""
    return _func(
        "%n: i32, %f: f32",
        f"%r = scf.while (%a = %n) : (i32) -> i32 {{\n%c = arith.cmpi slt, %a, %n : i32\n{condition}\n}} do {{\n"
        f"{after}{yield_}\n}}\nreturn",
    )


def _cast(op: str, src: str, dst: str) -> str:
    return _func(f"%a: {src}", f"%0 = arith.{op} %a : {src} to {dst}\nreturn")


def _reshape(op: str, src: str, groups: str, dst: str, out: str = "", args: str = "") -> str:
    shape = f" output_shape {out}" if op == "expand_shape" else ""
    return _func(f"%t: {src}{args}", f"%0 = tensor.{op} %t {groups}{shape} : {src} into {dst}\nreturn")


PAIRS: list[Pair] = [
    # --- arith integers are signless (spyre_mlir/traits.py SignlessIntegers; found by the fuzzer) ---
    Pair(
        "arith-unsigned-tensor",
        _func("%i: tensor<8xui32>", "%0 = arith.addi %i, %i : tensor<8xui32>\nreturn"),
        _func("%i: tensor<8xi32>", "%0 = arith.addi %i, %i : tensor<8xi32>\nreturn"),
        "must be signless",
    ),
    Pair(
        "arith-constant-signed",
        _func("", "%0 = arith.constant 1 : si32\nreturn"),
        _func("", "%0 = arith.constant 1 : i32\nreturn"),
        "signless",
    ),
    # --- dominance (spyre_mlir/dominance.py) ---
    Pair(
        "use-before-def",
        _func("", "%0 = arith.addi %1, %1 : i32\n%1 = arith.constant 1 : i32\nreturn"),
        _func("", "%1 = arith.constant 1 : i32\n%0 = arith.addi %1, %1 : i32\nreturn"),
        "operand #0 does not dominate this use",
    ),
    Pair(
        "non-dominating-block",
        _func(
            "%c: i1",
            "cf.cond_br %c, ^a, ^b\n^a:\n%x = arith.constant 1 : i32\ncf.br ^j\n^b:\ncf.br ^j\n^j:\n"
            '"test.use"(%x) : (i32) -> ()\nreturn',
        ),
        _func(
            "%c: i1",
            "%x = arith.constant 1 : i32\ncf.cond_br %c, ^a, ^b\n^a:\ncf.br ^j\n^b:\ncf.br ^j\n^j:\n"
            '"test.use"(%x) : (i32) -> ()\nreturn',
        ),
        "operand #0 does not dominate this use",
        unregistered=True,
    ),
    Pair(
        "block-argument",
        _func(
            "%c: i1, %z: i32",
            "cf.cond_br %c, ^a(%z : i32), ^b\n^a(%y: i32):\ncf.br ^j\n^b:\ncf.br ^j\n^j:\n"
            '"test.use"(%y) : (i32) -> ()\nreturn',
        ),
        _func(
            "%c: i1, %z: i32",
            "cf.cond_br %c, ^a(%z : i32), ^b\n^a(%y: i32):\n"
            '"test.use"(%y) : (i32) -> ()\ncf.br ^j\n^b:\ncf.br ^j\n^j:\nreturn',
        ),
        "operand #0 does not dominate this use",
        unregistered=True,
    ),
    Pair(
        "defined-later-than-region",
        _func(
            "%c: i1",
            "scf.if %c {\n%q = arith.addi %z, %z : i32\n}\n%z = arith.constant 0 : i32\nreturn",
        ),
        _func(
            "%c: i1",
            "%z = arith.constant 0 : i32\nscf.if %c {\n%q = arith.addi %z, %z : i32\n}\nreturn",
        ),
        "operand #0 does not dominate this use",
    ),
    Pair(
        "own-result-in-own-region",
        _func("", '%0 = scf.execute_region -> i32 {\n"test.use"(%0) : (i32) -> ()\n%1 = arith.constant 1 : i32\nscf.yield %1 : i32\n}\nreturn'),
        _func("", '%0 = scf.execute_region -> i32 {\n%1 = arith.constant 1 : i32\nscf.yield %1 : i32\n}\n"test.use"(%0) : (i32) -> ()\nreturn'),
        "operand #0 does not dominate this use",
        unregistered=True,
    ),
    Pair(
        "graph-region-is-module-only",
        _func("", '%0 = "test.use"(%1) : (i32) -> i32\n%1 = "test.def"() : () -> i32\nreturn'),
        '%0 = "test.use"(%1) : (i32) -> i32\n%1 = "test.def"() : () -> i32\n',
        "operand #0 does not dominate this use",
        unregistered=True,
    ),
    Pair(
        "unreachable-block-unchecked",
        _func("", "%a = arith.addi %b, %b : i32\n%b = arith.constant 1 : i32\nreturn"),
        _func("", "return\n^dead:\n%a = arith.addi %b, %b : i32\n%b = arith.constant 1 : i32\nreturn"),
        "operand #0 does not dominate this use",
    ),
    Pair(
        "unregistered-region-is-graph",
        _func("", '%0 = "test.use"(%1) : (i32) -> i32\n%1 = "test.def"() : () -> i32\nreturn'),
        _func('', '"test.region"() ({\n%0 = "test.use"(%1) : (i32) -> i32\n%1 = "test.def"() : () -> i32\n}) : () -> ()\nreturn'),
        "operand #0 does not dominate this use",
        unregistered=True,
    ),
    Pair(
        "branch-operand-count",
        _func("%c: i1, %v: i32", "cf.cond_br %c, ^a, ^b(%v : i32)\n^a(%x: i32):\nreturn\n^b:\nreturn"),
        _func("%c: i1, %v: i32", "cf.cond_br %c, ^a(%v : i32), ^b\n^a(%x: i32):\nreturn\n^b:\nreturn"),
        "branch has 0 operands for successor #0, but target block has 1",
    ),
    Pair(
        "branch-operand-type",
        _func("%v: f32", "cf.br ^a(%v : f32)\n^a(%x: i32):\nreturn"),
        _func("%v: i32", "cf.br ^a(%v : i32)\n^a(%x: i32):\nreturn"),
        "type mismatch for bb argument #0 of successor #0",
    ),
    # --- symbols (spyre_mlir/module_checks.py) ---
    Pair(
        "redefined-symbol",
        "func.func @g() {\nreturn\n}\nfunc.func @g() {\nreturn\n}\n",
        "func.func @g() {\nreturn\n}\nfunc.func @h() {\nreturn\n}\n",
        "redefinition of symbol named 'g'",
    ),
    # --- affine constants are 64-bit (spyre_mlir/xdsl_fixes.py): a parse error at the literal ---
    Pair(
        "affine-constant-too-large",
        _func("%i: index", "%0 = affine.apply affine_map<(d0) -> (d0 + 18446744073709551616)>(%i)\nreturn"),
        _func("%i: index", "%0 = affine.apply affine_map<(d0) -> (d0 + 9223372036854775808)>(%i)\nreturn"),
        "constant too large for index",
    ),
    Pair(
        "affine-set-constant-too-large",
        "#s = affine_set<(d0) : (-d0 * 9223372036854775809 >= 0)>\n" + _func("", "return").replace(
            "@f()", "@f() attributes {s = #s}"
        ),
        "#s = affine_set<(d0) : (-d0 * 9223372036854775807 * 4 >= 0)>\n" + _func("", "return").replace(
            "@f()", "@f() attributes {s = #s}"
        ),
        "constant too large for index",
    ),
    # --- MLIR's whitespace (spyre_mlir/xdsl_fixes.py): a NUL is skipped, a form feed is not whitespace ---
    Pair(
        "whitespace",
        _func("%a: i32", "%s = arith.addi %a,\f %a : i32\nreturn"),
        _func("%a: i32", "%s = arith.addi %a,\x00 %a : i32\nreturn"),
        "unexpected character",
    ),
    Pair(
        "public-declaration",
        "func.func @g(%a: i32) -> i32\n",
        "func.func private @g(%a: i32) -> i32\n",
        "'func.func' op symbol declaration cannot have public visibility",
    ),
    # --- tensor (dialects/tensor.py) ---
    Pair(
        "extract-indices",
        _func("%t: tensor<4x4xf32>, %i: index", "%0 = tensor.extract %t[%i] : tensor<4x4xf32>\nreturn"),
        _func("%t: tensor<4x4xf32>, %i: index", "%0 = tensor.extract %t[%i, %i] : tensor<4x4xf32>\nreturn"),
        "'tensor.extract' op incorrect number of indices for extract_element",
    ),
    Pair(
        "insert-indices",
        _func("%t: tensor<4x4xf32>, %i: index, %v: f32", "%0 = tensor.insert %v into %t[%i] : tensor<4x4xf32>\nreturn"),
        _func("%t: tensor<4x4xf32>, %i: index, %v: f32", "%0 = tensor.insert %v into %t[%i, %i] : tensor<4x4xf32>\nreturn"),
        "'tensor.insert' op incorrect number of indices",
    ),
    Pair(
        "slice-runs-out",
        _slice("tensor<8x8xf32>", "[6, 0] [4, 4] [1, 1]", "tensor<4x4xf32>"),
        _slice("tensor<8x8xf32>", "[4, 0] [4, 4] [1, 1]", "tensor<4x4xf32>"),
        "slice along dimension 0 runs out-of-bounds: 9 >= 8",
    ),
    Pair(
        "slice-stride-runs-out",
        _slice("tensor<8x8xf32>", "[0, 0] [4, 4] [3, 1]", "tensor<4x4xf32>"),
        _slice("tensor<8x8xf32>", "[1, 0] [4, 4] [2, 1]", "tensor<4x4xf32>"),
        "slice along dimension 0 runs out-of-bounds: 9 >= 8",
    ),
    Pair(
        "slice-offset-out",
        _slice("tensor<8x8xf32>", "[8, 0] [0, 4] [1, 1]", "tensor<0x4xf32>"),
        _slice("tensor<8x8xf32>", "[7, 0] [0, 4] [1, 1]", "tensor<0x4xf32>"),
        "offset 0 is out-of-bounds: 8 >= 8",
    ),
    Pair(
        "slice-negative-offset",
        _slice("tensor<8x8xf32>", "[-1, 0] [1, 4] [1, 1]", "tensor<1x4xf32>"),
        _slice("tensor<8x8xf32>", "[0, 0] [1, 4] [-1, 1]", "tensor<1x4xf32>"),
        "expected offsets to be non-negative, but got -1",
    ),
    Pair(
        "slice-negative-size",
        _slice("tensor<8x8xf32>", "[0, 0] [-4, 4] [1, 1]", "tensor<4x4xf32>"),
        _slice("tensor<8x8xf32>", "[0, 0] [0, 4] [1, 1]", "tensor<0x4xf32>"),
        "expected sizes to be non-negative, but got -4",
    ),
    Pair(
        "slice-rank",
        _slice("tensor<8x8xf32>", "[0, 0, 0] [4, 4, 1] [1, 1, 1]", "tensor<4x4xf32>"),
        _slice("tensor<8x8xf32>", "[0, 0] [4, 4] [1, 1]", "tensor<4x4xf32>"),
        "expected 2 offset values, got 3",
    ),
    Pair(
        "slice-result-sizes",
        _slice("tensor<8x8xf32>", "[0, 0] [4, 4] [1, 1]", "tensor<4x2xf32>"),
        _slice("tensor<8x8xf32>", "[0, 0] [1, 4] [1, 1]", "tensor<4xf32>"),
        "expected type to be 'tensor<4x4xf32>' or a rank-reduced version. (size mismatch)",
    ),
    Pair(
        "slice-dynamic-size",
        _slice("tensor<8x8xf32>", "[0, 0] [%n, 4] [1, 1]", "tensor<4x4xf32>", ", %n: index"),
        _slice("tensor<8x8xf32>", "[0, 0] [%n, 4] [1, 1]", "tensor<?x4xf32>", ", %n: index"),
        "expected type to be 'tensor<?x4xf32>' or a rank-reduced version. (size mismatch)",
    ),
    Pair(
        "slice-result-rank",
        _slice("tensor<8x8xf32>", "[0, 0] [1, 4] [1, 1]", "tensor<4x1x1xf32>"),
        _slice("tensor<8x1xf32>", "[0, 0] [1, 1] [1, 1]", "tensor<f32>"),
        "expected rank to be smaller or equal to the other rank.",
    ),
    Pair(
        "slice-result-element",
        _slice("tensor<8x8xf32>", "[0, 0] [1, 4] [1, 1]", "tensor<1x4xf16>"),
        _slice("tensor<8x8xf32>", "[0, 0] [1, 4] [1, 1]", "tensor<1x4xf32>"),
        "expected element type to be 'f32'",
    ),
    Pair(
        "slice-dynamic-source",
        _slice("tensor<?x8xf32>", "[0, 6] [4, 4] [1, 1]", "tensor<4x4xf32>"),
        _slice("tensor<?x8xf32>", "[100, 4] [4, 4] [1, 1]", "tensor<4x4xf32>"),
        "slice along dimension 1 runs out-of-bounds: 9 >= 8",
    ),
    Pair(
        "insert-slice-runs-out",
        _func(
            "%s: tensor<4x4xf32>, %t: tensor<8x8xf32>",
            "%0 = tensor.insert_slice %s into %t[6, 0] [4, 4] [1, 1] : tensor<4x4xf32> into tensor<8x8xf32>\nreturn",
        ),
        _func(
            "%s: tensor<4x4xf32>, %t: tensor<8x8xf32>",
            "%0 = tensor.insert_slice %s into %t[4, 4] [4, 4] [1, 1] : tensor<4x4xf32> into tensor<8x8xf32>\nreturn",
        ),
        "slice along dimension 0 runs out-of-bounds: 9 >= 8",
    ),
    Pair(
        "insert-slice-source",
        _func(
            "%s: tensor<4x2xf32>, %t: tensor<8x8xf32>",
            "%0 = tensor.insert_slice %s into %t[0, 0] [4, 4] [1, 1] : tensor<4x2xf32> into tensor<8x8xf32>\nreturn",
        ),
        _func(
            "%s: tensor<4xf32>, %t: tensor<8x8xf32>",
            "%0 = tensor.insert_slice %s into %t[0, 0] [1, 4] [1, 1] : tensor<4xf32> into tensor<8x8xf32>\nreturn",
        ),
        "expected type to be 'tensor<4x4xf32>' or a rank-reduced version. (size mismatch)",
    ),
    Pair(
        "collapse-product",
        _reshape("collapse_shape", "tensor<4x8xf32>", "[[0, 1]]", "tensor<30xf32>"),
        _reshape("collapse_shape", "tensor<4x8xf32>", "[[0, 1]]", "tensor<32xf32>"),
        "expected dimension 0 of collapsed type to be static value of 32",
    ),
    Pair(
        "collapse-uncovered",
        _reshape("collapse_shape", "tensor<4x8x1xf32>", "[[0, 1]]", "tensor<32xf32>"),
        _reshape("collapse_shape", "tensor<4x8x1xf32>", "[[0, 1, 2]]", "tensor<32xf32>"),
        "expected reassociation map #0 to have size equal to the expanded rank (3), but it is  2.",
    ),
    Pair(
        "collapse-not-from-zero",
        _reshape("collapse_shape", "tensor<4x8xf32>", "[[1]]", "tensor<8xf32>"),
        _reshape("collapse_shape", "tensor<1x8xf32>", "[[0, 1]]", "tensor<8xf32>"),
        "expected reassociation map #0 to be valid and contiguous.",
    ),
    Pair(
        "collapse-empty-group",
        _reshape("collapse_shape", "tensor<1x1xf32>", "[[0, 1], []]", "tensor<1xf32>"),
        _reshape("collapse_shape", "tensor<1x1xf32>", "[[0], [1]]", "tensor<1x1xf32>"),
        "reassociation indices must not be empty",
    ),
    Pair(
        "collapse-dynamic",
        _reshape("collapse_shape", "tensor<?x8xf32>", "[[0, 1]]", "tensor<32xf32>"),
        _reshape("collapse_shape", "tensor<?x8xf32>", "[[0, 1]]", "tensor<?xf32>"),
        "expected dimension 0 of collapsed type to be dynamic",
    ),
    Pair(
        "collapse-element",
        _reshape("collapse_shape", "tensor<4x8xf32>", "[[0, 1]]", "tensor<32xf16>"),
        _reshape("collapse_shape", "tensor<4x8xf16>", "[[0, 1]]", "tensor<32xf16>"),
        "expected collapsed type to be 'tensor<32xf32>', but got 'tensor<32xf16>'",
    ),
    Pair(
        "collapse-to-rank0",
        _reshape("collapse_shape", "tensor<2x1xf32>", "[]", "tensor<f32>"),
        _reshape("collapse_shape", "tensor<1x1xf32>", "[]", "tensor<f32>"),
        "number of elements must be preserved: 2 != 1",
    ),
    Pair(
        "expand-negative",
        _reshape("expand_shape", "tensor<32xf32>", "[[0, 1]]", "tensor<4x8xf32>", "[-4, 8]"),
        _reshape("expand_shape", "tensor<32xf32>", "[[0, 1]]", "tensor<4x8xf32>", "[4, 8]"),
        "invalid output shape provided at pos 0",
    ),
    Pair(
        "expand-inconsistent",
        _reshape("expand_shape", "tensor<32xf32>", "[[0, 1]]", "tensor<4x8xf32>", "[8, 4]"),
        _reshape("expand_shape", "tensor<32xf32>", "[[0, 1]]", "tensor<8x4xf32>", "[8, 4]"),
        "invalid output shape provided at pos 0",
    ),
    Pair(
        "expand-static-for-dynamic",
        _reshape("expand_shape", "tensor<?xf32>", "[[0, 1]]", "tensor<?x8xf32>", "[4, 8]", ", %n: index"),
        _reshape("expand_shape", "tensor<?xf32>", "[[0, 1]]", "tensor<?x8xf32>", "[%n, 8]", ", %n: index"),
        "incorrect number of dynamic sizes, has 0, expected 1",
    ),
    Pair(
        "expand-source",
        _reshape("expand_shape", "tensor<30xf32>", "[[0, 1]]", "tensor<4x8xf32>", "[4, 8]"),
        _reshape("expand_shape", "tensor<32xf32>", "[[0, 1]]", "tensor<4x8xf32>", "[4, 8]"),
        "expected dimension 0 of collapsed type to be static value of 32",
    ),
    Pair(
        "expand-from-rank0",  # the valid form is one xDSL 0.75 refused
        _reshape("expand_shape", "tensor<f32>", "[]", "tensor<2x3xf32>", "[2, 3]"),
        _reshape("expand_shape", "tensor<f32>", "[]", "tensor<1x1xf32>", "[1, 1]"),
        "number of elements must be preserved: 6 != 1",
    ),
    Pair(
        "expand-output-rank",
        _reshape("expand_shape", "tensor<32xf32>", "[[0, 1]]", "tensor<4x8xf32>", "[4, 8, 1]"),
        _reshape("expand_shape", "tensor<32xf32>", "[[0, 1, 2]]", "tensor<4x8x1xf32>", "[4, 8, 1]"),
        "expected number of static shape dims to be equal to the output rank (2) but found 3 inputs instead",
    ),
    Pair(
        "from-elements-count",
        _func("%a: f32", '%0 = "tensor.from_elements"(%a, %a) : (f32, f32) -> tensor<3xf32>\nreturn'),
        _func("%a: f32", '%0 = "tensor.from_elements"(%a, %a, %a) : (f32, f32, f32) -> tensor<3xf32>\nreturn'),
        "failed to verify that operand types match result element type",
    ),
    Pair(
        "empty-dynamic-sizes",
        _func("%n: index", "%0 = tensor.empty(%n, %n) : tensor<?x4xf32>\nreturn"),
        _func("%n: index", "%0 = tensor.empty(%n, %n) : tensor<?x?xf32>\nreturn"),
        "incorrect number of dynamic sizes, has 2, expected 1",
    ),
    Pair(
        "empty-missing-size",
        _func("", "%0 = tensor.empty() : tensor<?x4xf32>\nreturn"),
        _func("", "%0 = tensor.empty() : tensor<0x4xf32>\nreturn"),
        "incorrect number of dynamic sizes, has 0, expected 1",
    ),
    Pair(
        "pad-argument-type",
        _pad("tensor<4xf32>", "[1]", "[1]", "tensor<6xf32>", "%i: f8E4M3FN"),
        _pad("tensor<4xf32>", "[1]", "[1]", "tensor<6xf32>", "%i: index"),
        "'tensor.pad' op expected block argument 1 to be an index",
    ),
    Pair(
        "pad-argument-count",
        _pad("tensor<4x4xf32>", "[1, 1]", "[1, 1]", "tensor<6x6xf32>", "%i: index"),
        _pad("tensor<4x4xf32>", "[1, 1]", "[1, 1]", "tensor<6x6xf32>", "%i: index, %j: index"),
        "expected the block to have 2 arguments",
    ),
    Pair(
        "pad-yield-type",
        _pad("tensor<4xf32>", "[1]", "[1]", "tensor<6xf32>", "%i: index", "f16"),
        _pad("tensor<4xf16>", "[1]", "[1]", "tensor<6xf16>", "%i: index", "f16"),
        "'tensor.pad' op expected yield type to match shape element type",
    ),
    Pair(
        "pad-result-shape",
        _pad("tensor<4xf32>", "[1]", "[1]", "tensor<7xf32>", "%i: index"),
        _pad("tensor<4xf32>", "[-1]", "[-1]", "tensor<2xf32>", "%i: index"),
        "specified type 'tensor<7xf32>' does not match the inferred type 'tensor<6xf32>'",
    ),
    Pair(
        "pad-dynamic-result",  # the valid forms are ones xDSL 0.75 refused
        _pad("tensor<4xf32>", "[1]", "[1]", "tensor<?xf32>", "%i: index"),
        _pad("tensor<4xf32>", "[%n]", "[1]", "tensor<7xf32>", "%i: index"),
        "specified type 'tensor<?xf32>' does not match the inferred type 'tensor<6xf32>'",
    ),
    Pair(
        "pad-dynamic-source",
        _pad("tensor<?xf32>", "[1]", "[1]", "tensor<?x1xf32>", "%i: index"),
        _pad("tensor<?xf32>", "[1]", "[1]", "tensor<5xf32>", "%i: index"),
        "specified type 'tensor<?x1xf32>' does not match the inferred type 'tensor<?xf32>'",
    ),
    Pair(
        "pad-sizes",
        _pad("tensor<4xf32>", "[1, 1]", "[1, 1]", "tensor<6xf32>", "%i: index"),
        _pad("tensor<4xf32>", "[1]", "[1]", "tensor<6xf32>", "%i: index"),
        "failed to infer expectedType from sourceType 'tensor<4xf32>', specified resultType is 'tensor<6xf32>'",
    ),
    Pair(
        "pad-body-first",
        _pad("tensor<4xf32>", "[1]", "[1]", "tensor<6xf32>", "%i: f32", extra=EXTRACT_1D),
        _pad("tensor<4xf32>", "[1]", "[1]", "tensor<6xf32>", "%i: index"),
        "'tensor.extract' op incorrect number of indices for extract_element",
    ),
    Pair(
        "tensor-yield-parent",
        _reduce_body("tensor.yield %s : f16"),
        _reduce_body("linalg.yield %s : f16"),
        "'tensor.yield' op expects parent op to be one of 'tensor.generate, tensor.pad'",
    ),
    Pair(
        "tensor-yield-count",
        _pad("tensor<4xf32>", "[1]", "[1]", "tensor<6xf32>", "%i: index", yield_='"tensor.yield"(%c, %c) : (f32, f32) -> ()'),
        _pad("tensor<4xf32>", "[1]", "[1]", "tensor<6xf32>", "%i: index", yield_='"tensor.yield"(%c) : (f32) -> ()'),
        "'tensor.yield' op requires a single operand",
    ),
    # --- terminators in the wrong parent (HasParent wording: spyre_mlir/xdsl_fixes.py) ---
    Pair(
        "condition-parent",
        _func("%c: i1", "scf.if %c {\nscf.condition(%c)\n}\nreturn"),
        _func("%c: i1", "scf.while () : () -> () {\nscf.condition(%c)\n} do {\nscf.yield\n}\nreturn"),
        "'scf.condition' op expects parent op 'scf.while'",
    ),
    Pair(
        "scf-yield-parent",
        _generic("scf.yield %x : f32"),
        _generic("linalg.yield %x : f32"),
        "'scf.yield' op expects parent op to be one of 'scf.execute_region, scf.for, scf.if, scf.index_switch, scf.while'",
    ),
    Pair(
        "return-parent",
        _func("%c: i1", "scf.if %c {\nfunc.return\n}\nreturn"),
        _func("%c: i1", "scf.if %c {\nscf.yield\n}\nreturn"),
        "'func.return' op expects parent op 'func.func'",
    ),
    Pair(
        "affine-yield-parent",
        _func("%c: i1", "scf.if %c {\naffine.yield\n}\nreturn"),
        _func("%c: i1", "affine.for %i = 0 to 4 {\naffine.yield\n}\nreturn"),
        "'affine.yield' op only terminates affine.if/for/parallel regions",
    ),
    Pair(
        "affine-yield-count",
        _func("%c: index", "%r = affine.for %i = 0 to 4 iter_args(%a = %c) -> (index) {\naffine.yield\n}\nreturn"),
        _func("%c: index", "%r = affine.for %i = 0 to 4 iter_args(%a = %c) -> (index) {\naffine.yield %a : index\n}\nreturn"),
        "'affine.yield' op parent of yield must have same number of results as the yield operands",
    ),
    Pair(
        "affine-yield-type",
        _func(
            "%c: index, %f: f32",
            "%r = affine.for %i = 0 to 4 iter_args(%a = %c) -> (index) {\naffine.yield %f : f32\n}\nreturn",
        ),
        _func(
            "%c: index, %f: f32",
            "%r = affine.for %i = 0 to 4 iter_args(%a = %f) -> (f32) {\naffine.yield %f : f32\n}\nreturn",
        ),
        "'affine.yield' op types mismatch between yield op and its parent",
    ),
    # --- undeclared names: located at the use (LocatingParser in spyre_mlir/ir.py) ---
    Pair(
        "use-outside-region",
        _func("%c: i1", "scf.if %c {\n%q = arith.constant 0 : i32\n}\n%s = arith.addi %q, %q : i32\nreturn"),
        _func("%c: i1", "%q = arith.constant 0 : i32\nscf.if %c {\n}\n%s = arith.addi %q, %q : i32\nreturn"),
        "use of undeclared SSA value name",
    ),
    Pair(
        "operand-named-by-own-region",
        _func(
            "%lo: index, %hi: index",
            "%n = scf.for %i = %lo to %hi step %lo iter_args(%k = %i) -> (index) {\nscf.yield %k : index\n}\nreturn",
        ),
        _func(
            "%lo: index, %hi: index",
            "%n = scf.for %i = %lo to %hi step %lo iter_args(%k = %lo) -> (index) {\nscf.yield %i : index\n}\nreturn",
        ),
        "use of undeclared SSA value name",
    ),
    Pair(
        "forward-use-type",
        _func("", "%s = arith.addi %q, %q : i32\n%t = arith.addf %q, %q : f32\n%q = arith.constant 1 : i32\nreturn"),
        _func("", "%s = arith.addi %q, %q : i32\n%q = arith.constant 1 : i32\nreturn").replace("%s = arith.addi %q, %q : i32\n%q = arith.constant 1 : i32", "%q = arith.constant 1 : i32\n%s = arith.addi %q, %q : i32"),
        "use of value '%q' expects different type than prior uses: 'f32' vs 'i32'",
    ),
    Pair(
        "forward-definition-type",
        _func("", "%s = arith.addi %q, %q : i32\n%q = arith.constant 1.0 : f32\nreturn"),
        _func("", "%q = arith.constant 1 : i32\n%s = arith.addi %q, %q : i32\nreturn"),
        "definition of SSA value '%q#0' has type 'f32'",
    ),
    # --- scf (dialects/scf.py) ---
    Pair(
        "if-results-without-else",
        _if(F1, None, "-> f32"),
        _if(F1, F1, "-> f32"),
        "'scf.if' op must have an else block if defining values",
    ),
    Pair(
        "if-yield-type",
        _if(I1, F1),
        _if(F1, F1),
        "successor operand type #0 'i32' should match successor input type #0 'f32'",
    ),
    Pair(
        "if-yield-count",
        _if(F1, "scf.yield"),
        _if("scf.yield", "scf.yield", ""),
        "region branch point has 0 operands, but region successor needs 1 inputs",
    ),
    Pair(
        "while-condition-type",
        _while("scf.condition(%c) %f : f32", "scf.yield %b : i32"),
        _while("scf.condition(%c) %a : i32", "scf.yield %b : i32"),
        "along control flow edge from Operation scf.condition to Operation scf.while: successor operand type #0 'f32' "
        "should match successor input type #0 'i32'",
    ),
    Pair(
        "while-condition-count",
        _while("scf.condition(%c)", "scf.yield %b : i32"),
        _while("scf.condition(%c) %n : i32", "scf.yield %b : i32"),
        "along control flow edge from Operation scf.condition to Operation scf.while: region branch point has 0 "
        "operands, but region successor needs 1 inputs",
    ),
    Pair(
        "while-yield-type",
        _while("scf.condition(%c) %a : i32", "scf.yield %f : f32"),
        _while("scf.condition(%c) %a : i32", "scf.yield %n : i32"),
        "along control flow edge from Operation scf.yield to Region #0: successor operand type #0 'f32' should match "
        "successor input type #0 'i32'",
    ),
    Pair(
        "while-after-arguments",
        _while("scf.condition(%c) %a : i32", "scf.yield %n : i32", after_args=""),
        _while("scf.condition(%c) %a : i32", "scf.yield %n : i32", after_args="%b: i32"),
        "along control flow edge from Operation scf.condition to Region #1: region branch point has 1 operands, but "
        "region successor needs 0 inputs",
    ),
    Pair(
        "while-before-arguments",  # xDSL 0.75 raised an internal error on it
        _func(
            "%n: i32",
            '%r = "scf.while"(%n) ({\n^bb0(%a: f32):\n%c = arith.constant true\nscf.condition(%c) %n : i32\n}, {\n'
            "^bb0(%b: i32):\nscf.yield %n : i32\n}) : (i32) -> i32\nreturn",
        ),
        _func(
            "%n: i32",
            '%r = "scf.while"(%n) ({\n^bb0(%a: i32):\n%c = arith.constant true\nscf.condition(%c) %n : i32\n}, {\n'
            "^bb0(%b: i32):\nscf.yield %n : i32\n}) : (i32) -> i32\nreturn",
        ),
        "along control flow edge from parent to Region #0: successor operand type #0 'i32' should match successor "
        "input type #0 'f32'",
    ),
    Pair(
        "while-terminator",
        _func(
            "%n: i32",
            '%r = "scf.while"(%n) ({\n^bb0(%a: i32):\nscf.yield %a : i32\n}, {\n'
            "^bb0(%b: i32):\nscf.yield %n : i32\n}) : (i32) -> i32\nreturn",
        ),
        _func("%c: i1", "scf.while : () -> () {\nscf.condition(%c)\n} do {\nscf.yield\n}\nreturn"),
        "'scf.while' op expects the 'before' region to terminate with 'scf.condition'",
    ),
    Pair(
        "switch-duplicate",
        _func("%i: index", "scf.index_switch %i\ncase 2 {\nscf.yield\n}\ncase 2 {\nscf.yield\n}\ndefault {\n}\nreturn"),
        _func("%i: index", "scf.index_switch %i\ncase 2 {\nscf.yield\n}\ncase 3 {\nscf.yield\n}\ndefault {\n}\nreturn"),
        "'scf.index_switch' op has duplicate case value: 2",
    ),
    Pair(
        "switch-yield-count",
        _func("%i: index", "%r = scf.index_switch %i -> i32\ncase 2 {\nscf.yield\n}\ndefault {\n" + I1 + "\n}\nreturn"),
        _func("%i: index", "%r = scf.index_switch %i -> i32\ncase 2 {\n" + I1 + "\n}\ndefault {\n" + I1 + "\n}\nreturn"),
        "'scf.index_switch' op expected each region to return 1 values, but case region #0 returns 0",
    ),
    Pair(
        "switch-yield-type",
        _func("%i: index", "%r = scf.index_switch %i -> i32\ncase 2 {\n" + I1 + "\n}\ndefault {\n" + F1 + "\n}\nreturn"),
        _func("%i: index", "%r = scf.index_switch %i -> f32\ncase 2 {\n" + F1 + "\n}\ndefault {\n" + F1 + "\n}\nreturn"),
        "'scf.index_switch' op expected result #0 of each region to be 'i32'",
    ),
    # --- arith (dialects/arith.py) ---
    Pair(
        "extf-narrows",
        _cast("extf", "f32", "f16"),
        _cast("extf", "f16", "f32"),
        "'arith.extf' op operand type 'f32' and result type 'f16' are cast incompatible",
    ),
    Pair(
        "extf-same-width",
        _cast("extf", "bf16", "f16"),
        _cast("extf", "bf16", "f32"),
        "operand type 'bf16' and result type 'f16' are cast incompatible",
    ),
    Pair(
        "extf-tensor",
        _cast("extf", "tensor<4xf16>", "tensor<4xf16>"),
        _cast("extf", "tensor<4xf16>", "tensor<4xf32>"),
        "operand type 'tensor<4xf16>' and result type 'tensor<4xf16>' are cast incompatible",
    ),
    Pair(
        "truncf-widens",
        _cast("truncf", "f16", "f32"),
        _cast("truncf", "f32", "bf16"),
        "'arith.truncf' op operand type 'f16' and result type 'f32' are cast incompatible",
    ),
    Pair(
        "extsi-same-width",
        _cast("extsi", "i32", "i32"),
        _cast("extsi", "i32", "i64"),
        "'arith.extsi' op operand type 'i32' and result type 'i32' are cast incompatible",
    ),
    Pair(
        "extui-narrows",
        _cast("extui", "i32", "i16"),
        _cast("extui", "i1", "i32"),
        "'arith.extui' op operand type 'i32' and result type 'i16' are cast incompatible",
    ),
    Pair(
        "trunci-widens",
        _cast("trunci", "tensor<4xi32>", "tensor<4xi64>"),
        _cast("trunci", "tensor<4xi32>", "tensor<4xi8>"),
        "operand type 'tensor<4xi32>' and result type 'tensor<4xi64>' are cast incompatible",
    ),
    # --- linalg (dialects/linalg.py) ---
    Pair(
        "fill-type",
        _func("%a: f16, %t: tensor<4xf32>", "%0 = linalg.fill ins(%a : f16) outs(%t : tensor<4xf32>) -> tensor<4xf32>\nreturn"),
        _func("%a: f32, %t: tensor<4xf32>", "%0 = linalg.fill ins(%a : f32) outs(%t : tensor<4xf32>) -> tensor<4xf32>\nreturn"),
        "'linalg.fill' op expected fill value type ('f16') to match output element type ('f32')",
    ),
    Pair(
        "fill-scalar-output",  # xDSL 0.75 raised an internal error on it
        _func("%a: f32, %t: f32", "linalg.fill ins(%a : f32) outs(%t : f32)\nreturn"),
        _func("%a: f32, %t: memref<4xf32>", "linalg.fill ins(%a : f32) outs(%t : memref<4xf32>)\nreturn"),
        "'linalg.fill' op operand #1 must be variadic of shaped of any non-token type values, but got 'f32'",
    ),
    Pair(
        "generic-yield-type",
        _generic("%h = arith.truncf %x : f32 to f16\nlinalg.yield %h : f16"),
        _generic("%h = arith.truncf %x : f32 to f16\nlinalg.yield %h : f16", "tensor<4xf16>").replace(
            "%y: f32", "%y: f16"
        ),
        "type of yield operand 1 ('f16') doesn't match the element type of the enclosing linalg.generic op ('f32')",
    ),
    Pair(
        "generic-yield-count",
        _generic("linalg.yield %x, %y : f32, f32"),
        _generic("linalg.yield %y : f32"),
        "expected number of yield values (2) to match the number of inits / outs operands",
    ),
    Pair(
        "reduce-yield-type",
        _func(
            "%a: tensor<4x8xf32>, %t: tensor<4xf32>",
            "%0 = linalg.reduce ins(%a : tensor<4x8xf32>) outs(%t : tensor<4xf32>) dimensions = [1]\n"
            "(%x: f32, %y: f32) {\n%h = arith.truncf %x : f32 to f16\nlinalg.yield %h : f16\n}\nreturn",
        ),
        _func(
            "%a: tensor<4x8xf32>, %t: tensor<4xf32>",
            "%0 = linalg.reduce ins(%a : tensor<4x8xf32>) outs(%t : tensor<4xf32>) dimensions = [1]\n"
            "(%x: f32, %y: f32) {\n%h = arith.addf %x, %y : f32\nlinalg.yield %h : f32\n}\nreturn",
        ),
        "type of yield operand 1 ('f16') doesn't match the element type",
    ),
    Pair(
        "reduce-block-arguments",
        _func(
            "%a: tensor<4x8xf32>, %t: tensor<4xf32>",
            "%0 = linalg.reduce ins(%a : tensor<4x8xf32>) outs(%t : tensor<4xf32>) dimensions = [1]\n"
            "(%x: f32) {\nlinalg.yield %x : f32\n}\nreturn",
        ),
        _func(
            "%a: tensor<4x8xf32>, %t: tensor<4xf32>",
            "%0 = linalg.reduce { arith.addf } ins(%a : tensor<4x8xf32>) outs(%t : tensor<4xf32>) dimensions = [1]\nreturn",
        ),
        "'linalg.reduce' op mismatching number of operands and block arguments",
    ),
    Pair(
        "reduce-block-argument-type",
        _func(
            "%a: tensor<4x8xf32>, %t: tensor<4xf32>",
            "%0 = linalg.reduce ins(%a : tensor<4x8xf32>) outs(%t : tensor<4xf32>) dimensions = [1]\n"
            "(%x: f32, %y: f16) {\nlinalg.yield %x : f32\n}\nreturn",
        ),
        _func(
            "%a: tensor<4x8xf32>, %t: tensor<4xf32>",
            "%0 = linalg.reduce ins(%a : tensor<4x8xf32>) outs(%t : tensor<4xf32>) dimensions = [1]\n"
            "(%x: f32, %y: f32) {\nlinalg.yield %x : f32\n}\nreturn",
        ),
        "output element type 'f32' does not match corresponding block argument type 'f16'",
    ),
    Pair(
        "reduce-dimension-range",
        _func(
            "%a: tensor<4x8xf32>, %t: tensor<4xf32>",
            "%0 = linalg.reduce { arith.addf } ins(%a : tensor<4x8xf32>) outs(%t : tensor<4xf32>) dimensions = [2]\n"
            "return",
        ),
        _func(
            "%a: tensor<4x8xf32>, %t: tensor<8xf32>",
            "%0 = linalg.reduce { arith.addf } ins(%a : tensor<4x8xf32>) outs(%t : tensor<8xf32>) dimensions = [0]\n"
            "return",
        ),
        "dimensions for reduction should be in the range [0, 1].",
    ),
    Pair(
        "reduce-dimension-order",
        _func(
            "%a: tensor<4x8xf32>, %t: tensor<f32>",
            "%0 = linalg.reduce { arith.addf } ins(%a : tensor<4x8xf32>) outs(%t : tensor<f32>) dimensions = [1, 0]\n"
            "return",
        ),
        _func(
            "%a: tensor<4x8xf32>, %t: tensor<f32>",
            "%0 = linalg.reduce { arith.addf } ins(%a : tensor<4x8xf32>) outs(%t : tensor<f32>) dimensions = [0, 1]\n"
            "return",
        ),
        "i64 dense array attribute should be in increasing order",
    ),
    # --- memref (dialects/memref.py): xDSL's check raised an internal error ---
    Pair(
        "load-indices",
        _func("%m: memref<4x4xf32>, %i: index", "%0 = memref.load %m[%i] : memref<4x4xf32>\nreturn"),
        _func("%m: memref<4x4xf32>, %i: index", "%0 = memref.load %m[%i, %i] : memref<4x4xf32>\nreturn"),
        "'memref.load' op invalid number of indices for accessed memref, expected 2 but got 1",
    ),
    Pair(
        "store-indices",
        _func("%m: memref<4xf32>, %i: index, %v: f32", "memref.store %v, %m[%i, %i] : memref<4xf32>\nreturn"),
        _func("%m: memref<4xf32>, %i: index, %v: f32", "memref.store %v, %m[%i] : memref<4xf32>\nreturn"),
        "'memref.store' op invalid number of indices for accessed memref, expected 1 but got 2",
    ),
    Pair(
        "index-parent",
        _func("", "%0 = linalg.index 0 : index\nreturn"),
        _reduce_body("%j = linalg.index 1 : index\nlinalg.yield %s : f16"),  # xDSL 0.75 refused it in a reduce
        "'linalg.index' op expected parent op with LinalgOp interface",
    ),
    Pair(
        "index-dim",
        _generic("%j = linalg.index 1 : index\nlinalg.yield %x : f32"),
        _generic("%j = linalg.index 0 : index\nlinalg.yield %x : f32"),
        "'linalg.index' op expected dim (1) to be lower than the number of loops (1) of the enclosing LinalgOp",
    ),
    Pair(
        "generic-body-first",
        _generic(EXTRACT_1D + "\nlinalg.yield %x : f32").replace("^bb0(%x: f32, %y: f32)", "^bb0(%x: f32)").replace(
            "%a: tensor<4xf32>", "%a: tensor<4xf32>, %m: tensor<4x4xf32>, %n: index"
        ),
        _generic("linalg.yield %x : f32"),
        "'tensor.extract' op incorrect number of indices for extract_element",
    ),
    Pair(
        "if-body-first",
        _if(EXTRACT_1D + "\nscf.yield", F1).replace("%c: i1", "%c: i1, %m: tensor<4x4xf32>, %n: index"),
        _if(F1, F1),
        "'tensor.extract' op incorrect number of indices for extract_element",
    ),
    Pair(
        "transpose-permutation",  # xDSL 0.75's verifier raised an internal error on it
        _func(
            "%a: tensor<4x8xf32>, %e: tensor<8x4xf32>",
            "%t = linalg.transpose ins(%a : tensor<4x8xf32>) outs(%e : tensor<8x4xf32>) permutation = [2, 0]\nreturn",
        ),
        _func(
            "%a: tensor<4x8xf32>, %e: tensor<8x4xf32>",
            "%t = linalg.transpose ins(%a : tensor<4x8xf32>) outs(%e : tensor<8x4xf32>) permutation = [1, 0]\nreturn",
        ),
        "'linalg.transpose' op permutation is not valid",
    ),
    Pair(
        "transpose-ranks",
        _func(
            "%a: tensor<4x8xf32>, %e: tensor<8x4x1xf32>",
            "%t = linalg.transpose ins(%a : tensor<4x8xf32>) outs(%e : tensor<8x4x1xf32>) permutation = [1, 0]\nreturn",
        ),
        _func(
            "%a: tensor<4x8x1xf32>, %e: tensor<8x4x1xf32>",
            "%t = linalg.transpose ins(%a : tensor<4x8x1xf32>) outs(%e : tensor<8x4x1xf32>) permutation = [1, 0, 2]\n"
            "return",
        ),
        "'linalg.transpose' op input rank (2) does not match init rank (3)",
    ),
    Pair(
        "empty-body",
        "func.func @f(%a: i32) -> i32 {\n}\n",
        "func.func private @f(%a: i32) -> i32\n",
        "empty block: expect at least a terminator",
    ),
    Pair(
        "remf",  # the valid form is an op xDSL 0.75 did not have
        _func("%a: f32, %b: f16", "%0 = arith.remf %a, %b : f32\nreturn"),
        _func("%a: f32, %b: f32", "%0 = arith.remf %a, %b : f32\n%1 = arith.index_castui %0 : f32 to index\nreturn").replace(
            "%1 = arith.index_castui %0 : f32 to index\n", ""
        ),
        "use of value '%b' expects different type than prior uses: 'f32' vs 'f16'",
    ),
    Pair(
        "index-castui",
        _func("%a: i32", "%0 = arith.index_castui %a : i32 to i64\nreturn"),
        _func("%a: i32", "%0 = arith.index_castui %a : i32 to index\nreturn"),
        "'arith.index_castui' op operand type 'i32' and result type 'i64' are cast incompatible",
    ),
    Pair(
        "yield-outside-linalg",
        _func("%x: f32", "linalg.yield %x : f32"),
        _generic("linalg.yield %x : f32"),
        "'linalg.yield' op expected parent op with LinalgOp interface",
    ),
]

CASES = [(p, kind) for p in PAIRS for kind in ("invalid", "valid")]


def _text(pair: Pair, kind: str) -> str:
    return pair.invalid if kind == "invalid" else pair.valid


def ours(pair: Pair, kind: str) -> str | None:
    """None if we accept, else our error message."""
    text = _text(pair, kind)
    try:
        if pair.unregistered:
            ir.verify(ir.parse_module(text, "<case>", ir.make_context(allow_unregistered=True)))
        else:
            spyre_mlir.parse(text)
    except DiagnosticError as exc:
        return exc.diagnostic.message
    return None


def mlir_errors(texts: list[str]) -> list[list[str]]:
    """MLIR's error messages for each text (empty: accepted), from one
    `iree-opt --split-input-file` run over all of them."""
    chunks, starts, line = [], [], 1
    for text in texts:
        text = text.rstrip("\n") + "\n"
        starts.append(line)
        chunks.append(text)
        line += text.count("\n") + 1  # and the `// -----` line
    proc = subprocess.run(
        [IREE_OPT, "--allow-unregistered-dialect", "--split-input-file", "--mlir-print-op-on-diagnostic=false", "-"],
        input="// -----\n".join(chunks),
        capture_output=True,
        text=True,
        timeout=300,
    )
    errors: list[list[str]] = [[] for _ in texts]
    for m in re.finditer(r"^<stdin>:(\d+):\d+: error: (.*)$", proc.stderr, re.MULTILINE):
        errors[bisect.bisect_right(starts, int(m.group(1))) - 1].append(m.group(2).strip())
    return errors


@pytest.fixture(scope="module")
def mlir_verdicts() -> dict[tuple[str, str], list[str]]:
    """(pair name, kind) -> MLIR's error messages (empty: accepted)."""
    errors = mlir_errors([_text(p, k) for p, k in CASES])
    return {(p.name, k): e for (p, k), e in zip(CASES, errors)}


@needs_mlir
@pytest.mark.parametrize(("pair", "kind"), CASES, ids=[f"{p.name}-{k}" for p, k in CASES])
def test_same_verdict_as_mlir(pair: Pair, kind: str, mlir_verdicts):
    theirs = mlir_verdicts[(pair.name, kind)]
    mine = ours(pair, kind)
    if kind == "valid":
        assert not theirs, f"test data: MLIR rejects the valid form: {theirs}"
        assert mine is None, f"we reject what MLIR accepts: {mine}"
        return
    assert theirs, "test data: MLIR accepts the invalid form"
    assert any(pair.message in t for t in theirs), f"test data: MLIR says {theirs}"
    assert mine is not None, f"we accept what MLIR rejects ({theirs[0]})"
    assert pair.message in mine, f"MLIR says {pair.message!r}, we say {mine!r}"


def test_every_invalid_case_is_rejected_by_us():
    """Without iree-opt too: each invalid form fails, each valid one passes."""
    for pair in PAIRS:
        message = ours(pair, "invalid")
        assert message is not None and pair.message in message, (pair.name, message)
        assert ours(pair, "valid") is None, (pair.name, ours(pair, "valid"))


LIT = REPO / "test" / "lit" / "dialects"
MLIR_WORDED_LIT_FILES = [
    LIT / "arith" / "invalid.mlir",
    LIT / "cf" / "invalid.mlir",
    LIT / "tensor" / "invalid.mlir",
    LIT / "scf" / "invalid.mlir",
    LIT / "linalg" / "invalid.mlir",
    LIT / "memref" / "invalid.mlir",
    LIT / "builtin" / "dominance-invalid.mlir",
    LIT / "builtin" / "symbols-invalid.mlir",
]


@needs_mlir
@pytest.mark.parametrize("path", MLIR_WORDED_LIT_FILES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_lit_expectations_are_mlirs(path: Path):
    """The expected errors and notes of our lit files are MLIR's too."""
    proc = subprocess.run(
        [IREE_OPT, "--allow-unregistered-dialect", "--split-input-file", "--verify-diagnostics", str(path)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr


# ---------------------------------------------------------------------------
# The deliberate difference: affine division by zero
# ---------------------------------------------------------------------------

DIVISIONS = ["d0 floordiv 0", "d0 ceildiv 0", "d0 mod 0", "4 floordiv 0"]


def _apply(expr: str) -> str:
    return _func("%i: index", f"%0 = affine.apply affine_map<(d0) -> ({expr})>(%i)\nreturn")


@pytest.mark.parametrize("expr", DIVISIONS)
def test_affine_division_by_zero_is_refused_where_written(expr: str):
    with pytest.raises(DiagnosticError) as info:
        spyre_mlir.parse(_apply(expr))
    d = info.value.diagnostic
    assert d.message == f"'affine.apply' op affine expression `{expr}` divides by zero"
    assert d.location is not None and d.location.line == 2
    spyre_mlir.parse(_apply(expr.replace(" 0", " 2")))


@needs_mlir
def test_mlir_accepts_affine_division_by_zero():
    """Pins the difference: if MLIR ever rejects these, we follow its message."""
    for expr in DIVISIONS:
        proc = subprocess.run([IREE_OPT, "-"], input=_apply(expr), capture_output=True, text=True, timeout=120)
        assert proc.returncode == 0, proc.stderr


# ---------------------------------------------------------------------------
# Dominance on IR that passes build (the parser cannot spell these)
# ---------------------------------------------------------------------------


def test_a_pass_moving_an_op_above_its_operand_is_caught():
    module = spyre_mlir.parse(_func("", "%1 = arith.constant 1 : i32\n%0 = arith.addi %1, %1 : i32\nreturn"))
    const, add, _ = module.body.block.ops.first.body.block.ops
    add.detach()
    const.parent.insert_op_before(add, const)
    with pytest.raises(DiagnosticError) as info:
        ir.verify(module)
    d = info.value.diagnostic
    assert d.message == "operand #0 does not dominate this use"
    assert (d.location.line, d.notes[0].message, d.notes[0].location.line) == (
        3,
        "operand defined here (op in the same block)",
        2,
    )


def test_a_region_value_used_outside_its_region_is_caught():
    module = spyre_mlir.parse(
        _func("%c: i1, %x: i32", "scf.if %c {\n%q = arith.constant 0 : i32\n}\n%s = arith.addi %x, %x : i32\nreturn")
    )
    if_, add, _ = module.body.block.ops.first.body.block.ops
    add.operands = [if_.true_region.block.ops.first.results[0], add.operands[1]]
    with pytest.raises(DiagnosticError) as info:
        ir.verify(module)
    d = info.value.diagnostic
    assert (d.message, d.location.line) == ("operand #0 does not dominate this use", 5)
    assert (d.notes[0].message, d.notes[0].location.line) == ("operand defined here (op in a child region)", 3)


# ---------------------------------------------------------------------------
# Random inputs, seeded: the verdicts agree beyond the hand-written pairs
# ---------------------------------------------------------------------------


def _random_cfg(rng: random.Random) -> str:
    """A function of 2-6 blocks with random branches (some blocks unreachable),
    each block defining a value and using values of any block, directly or
    from a nested region (SSACFG `scf.execute_region`, graph `test.region`)."""
    n = rng.randint(2, 6)
    lines = ["func.func @f(%c: i1) {"]
    for b in range(n):
        lines += [f"^bb{b}:"] if b else []
        lines.append(f"%v{b} = arith.constant {b} : i32")
        for _ in range(rng.randint(0, 2)):
            use = f'"test.use"(%v{rng.randrange(b + 1) if rng.random() < 0.8 else rng.randrange(n)}) : (i32) -> ()'
            wrap = rng.random()
            if wrap < 0.25:
                use = f'"test.region"() ({{\n{use}\n}}) : () -> ()'
            elif wrap < 0.5:
                use = f"scf.execute_region {{\n{use}\nscf.yield\n}}"
            lines.append(use)
        r, targets = rng.random(), range(1, n)
        if r < 0.2:
            lines.append("return")
        elif r < 0.6:
            lines.append(f"cf.br ^bb{rng.choice(targets)}")
        else:
            lines.append(f"cf.cond_br %c, ^bb{rng.choice(targets)}, ^bb{rng.choice(targets)}")
    return "\n".join([*lines, "}"]) + "\n"


def _tensor_type(dims: list[int | None], element: str = "f32") -> str:
    return f"tensor<{''.join(('?' if d is None else str(d)) + 'x' for d in dims)}{element}>"


def _random_slice(rng: random.Random) -> str:
    """An extract_slice or insert_slice with random static/dynamic offsets,
    sizes, strides (negative, zero, out of bounds) and slice types."""
    rank = rng.randint(1, 3)
    src = [rng.choice([None, 1, 2, 4, 8]) for _ in range(rank)]
    offsets = [rng.choice([0, 1, 3, 7, 8, -1, "%i"]) for _ in range(rank)]
    sizes = [rng.choice([0, 1, 2, 4, "%i"]) for _ in range(rank)]
    strides = [rng.choice([1, 2, 3, 0, -1, "%i"]) for _ in range(rank)]
    part = [None if s == "%i" else s for s in sizes]
    if rng.random() < 0.4:
        part = [d for d in part if d != 1 or rng.random() < 0.5]  # rank-reduced
    if rng.random() < 0.2:
        part = [rng.choice([None, 1, 2, 4]) for _ in range(rng.randint(0, 3))]
    whole, piece = _tensor_type(src), _tensor_type(part, "f16" if rng.random() < 0.05 else "f32")
    ofs = f"[{', '.join(map(str, offsets))}] [{', '.join(map(str, sizes))}] [{', '.join(map(str, strides))}]"
    if rng.random() < 0.5:
        return _func(f"%t: {whole}, %i: index", f"%0 = tensor.extract_slice %t{ofs} : {whole} to {piece}\nreturn")
    return _func(
        f"%t: {whole}, %s: {piece}, %i: index", f"%0 = tensor.insert_slice %s into %t{ofs} : {piece} into {whole}\nreturn"
    )


def _random_reshape(rng: random.Random) -> str:
    """A collapse_shape or expand_shape, mostly consistent, with random
    faults: wrong or dynamic sizes, empty or reversed groups, uncovered
    dims, element types, output_shape entries."""
    groups, k = [], 0
    for _ in range(rng.randint(0, 3)):
        size = rng.randint(1, 3) if rng.random() < 0.95 else 0
        groups.append(list(range(k, k + size)))
        k += size
    if rng.random() < 0.1 and groups and groups[-1]:
        groups[-1].reverse()
    big = [rng.choice([1, 2, 4, None]) for _ in range(k + (rng.random() < 0.1))]
    small, start = [], 0
    for g in groups:
        dims = big[start : start + len(g)]
        start += len(g)
        small.append(None if None in dims else math.prod(dims))
    if rng.random() < 0.25 and small:
        small[rng.randrange(len(small))] = rng.choice([None, 1, 3, 8])
    if not groups and rng.random() < 0.5:
        big = [rng.choice([1, 1, 2, None]) for _ in range(rng.randint(0, 2))]
    element = "f16" if rng.random() < 0.05 else "f32"
    reassociation = str(groups).replace("'", "")
    if rng.random() < 0.5:
        src, dst = _tensor_type(big), _tensor_type(small, element)
        return _func(f"%t: {src}", f"%0 = tensor.collapse_shape %t {reassociation} : {src} into {dst}\nreturn")
    out = ["%n" if d is None else str(d) for d in big]
    if rng.random() < 0.2 and out:
        out[rng.randrange(len(out))] = rng.choice(["%n", "3", "-2", "1"])
    src, dst = _tensor_type(small, element), _tensor_type(big)
    return _func(
        f"%t: {src}, %n: index",
        f"%0 = tensor.expand_shape %t {reassociation} output_shape [{', '.join(out)}] : {src} into {dst}\nreturn",
    )


@needs_mlir
@pytest.mark.parametrize("generate", [_random_cfg, _random_slice, _random_reshape], ids=lambda g: g.__name__[8:])
def test_random_inputs_get_mlirs_verdict(generate):
    rng = random.Random(20261201)
    texts = [generate(rng) for _ in range(300)]
    for text, theirs in zip(texts, mlir_errors(texts)):
        try:
            ir.verify(ir.parse_module(text, "<random>", ir.make_context(allow_unregistered=True)))
            mine = None
        except DiagnosticError as exc:
            mine = exc.diagnostic.message
        assert "internal error" not in (mine or ""), text
        assert (mine is not None) == bool(theirs), f"MLIR: {theirs or 'accepts'}; we: {mine or 'accept'}\n{text}"

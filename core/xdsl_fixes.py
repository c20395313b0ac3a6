"""Fixes to xDSL 0.75 that cannot be made by subclassing, applied on import.

Each is small, tested (test/unit/test_xdsl_fixes.py), listed in
third_party/README.md, and to be removed once xDSL ships the fix.
"""

from __future__ import annotations

import re

from xdsl.dialects.builtin import AnyFloat
from xdsl.ir import SSAValue
from xdsl.ir.affine import AffineBinaryOpKind, AffineConstantExpr, AffineExpr
from xdsl.parser import AttrParser
from xdsl.printer import Printer
from xdsl.utils.lexer import Input, Token
from xdsl.utils.mlir_lexer import MLIRLexer, MLIRTokenKind, StringLiteral

# A string literal was matched with `"(?:[^"...]+|\\...)*"`: a `+` nested in a
# `*`, which backtracks exponentially when the closing quote is missing (a stray
# `"` in a long line took minutes). Matching one character per repetition
# accepts the same language in linear time.
MLIRLexer._unescaped_characters_regex = re.compile(  # pyright: ignore[reportPrivateUsage]
    r'"(?:[^"\\\n\v\f]|\\(?:["nt\\]|[0-9A-Fa-f]{2}))*"'
)


# In a dense literal of float type, MLIR reads a hexadecimal integer as the
# element's bit pattern (`dense<0xFC00> : tensor<4xf16>` is -inf), as xDSL
# already does for scalar attributes; xDSL 0.75 converted the integer's value
# instead (64512.0): a silently wrong constant.
_TensorLiteralElement = AttrParser._TensorLiteralElement  # pyright: ignore[reportPrivateUsage]
_to_type = _TensorLiteralElement.to_type


def _to_type_reading_hex_floats_as_bits(self, parser: AttrParser, type):  # noqa: ANN001
    if (
        isinstance(type, AnyFloat)
        and isinstance(self.value, int)
        and not isinstance(self.value, bool)
        and self.span.text.lstrip("-")[:2] in ("0x", "0X")
    ):
        if self.is_negative:
            parser.raise_error("hexadecimal float literal cannot be negative", at_position=self.span)
        if self.value.bit_length() > type.bitwidth:
            parser.raise_error("hexadecimal float constant out of range for type", at_position=self.span)
        return next(type.iter_unpack(self.value.to_bytes(type.compile_time_size, "little")))
    return _to_type(self, parser, type)


_TensorLiteralElement.to_type = _to_type_reading_hex_floats_as_bits


# Our parser keeps SSA names exactly as written (`%a_1`; see
# `spyre_mlir.ir.LocatingParser`), where xDSL strips a trailing `_N`. xDSL's
# printer makes a name unique by appending `_N` to the hint, which can then
# collide with such a name (`%a_1` written, a clone of `%a` printed `%a_1`
# too): invalid IR. Pick the first `_N` not yet used in the scope instead.
_SUFFIX = re.compile(r"_\d+$")


def _print_ssa_value_unique(self: Printer, value: SSAValue) -> str:
    name = self._ssa_values.get(value)  # pyright: ignore[reportPrivateUsage]
    if name is None:
        hint = value.name_hint
        if not hint:
            name = self._get_new_valid_name_id()  # pyright: ignore[reportPrivateUsage]
        else:
            used = self.ssa_names
            name = hint
            if name in used:
                base = _SUFFIX.sub("", hint)
                n = max(used.get(base, 1), 1)
                while f"{base}_{n}" in used:
                    n += 1
                name = f"{base}_{n}"
                used[base] = n + 1
            used.setdefault(name, 1)
        self._ssa_values[value] = name  # pyright: ignore[reportPrivateUsage]
    self.print_string(f"%{name}")
    return name


Printer.print_ssa_value = _print_ssa_value_unique


# Source text keeps bytes that are not UTF-8 as surrogate escapes (see
# `spyre_mlir.ir.read_source`). A string literal holding them is a bytes
# literal, kept byte for byte and printed back as `\XX` escapes as MLIR does;
# xDSL would fail to encode them (a UnicodeEncodeError at the literal).
_NOT_UTF8 = re.compile("[\udc80-\udcff]")


def _bytes_contents_keeping_raw_bytes(self: StringLiteral) -> bytes:
    text = self.text[1:-1]
    if _NOT_UTF8.search(text) is None:
        return _bytes_contents(self)
    # Raw bytes as they are; the text around them (escapes included) as xDSL reads it.
    out = bytearray()
    for piece in re.split("([\udc80-\udcff]+)", text):
        if _NOT_UTF8.match(piece):
            out += piece.encode("utf-8", "surrogateescape")
        elif piece:
            quoted = f'"{piece}"'
            out += _bytes_contents(StringLiteral(0, len(quoted), Input(quoted, self.input.name)))
    return bytes(out)


_bytes_contents = StringLiteral.bytes_contents.fget
StringLiteral.bytes_contents = property(_bytes_contents_keeping_raw_bytes)
_lex_string_literal = MLIRLexer._lex_string_literal  # pyright: ignore[reportPrivateUsage]


def _lex_string_literal_keeping_raw_bytes(self: MLIRLexer, start_pos):  # noqa: ANN001
    token = _lex_string_literal(self, start_pos)
    if token.kind == MLIRTokenKind.STRING_LIT and _NOT_UTF8.search(token.span.text):
        return Token(MLIRTokenKind.BYTES_LIT, token.span)
    return token


MLIRLexer._lex_string_literal = _lex_string_literal_keeping_raw_bytes  # pyright: ignore[reportPrivateUsage]


# xDSL folds `4 floordiv 0` (also `ceildiv 0`, `mod 0`) while building the
# expression, and so crashed with a ZeroDivisionError in the middle of parsing
# an affine map. MLIR keeps such an expression unfolded; so do we, and the
# verifier then refuses the map where it is written
# (`spyre_mlir.module_checks`).
_try_fold_constant = AffineExpr._try_fold_constant  # pyright: ignore[reportPrivateUsage]
_DIVISIONS = (AffineBinaryOpKind.FloorDiv, AffineBinaryOpKind.CeilDiv, AffineBinaryOpKind.Mod)


def _try_fold_constant_but_not_by_zero(self: AffineExpr, other: AffineExpr, kind: AffineBinaryOpKind):
    if kind in _DIVISIONS and isinstance(other, AffineConstantExpr) and other.value == 0:
        return None
    return _try_fold_constant(self, other, kind)


AffineExpr._try_fold_constant = _try_fold_constant_but_not_by_zero  # pyright: ignore[reportPrivateUsage]

"""Fixes to xDSL 0.75 that cannot be made by subclassing, applied on import.

Each is small, tested (test/unit/test_xdsl_fixes.py), listed in
third_party/README.md, and to be removed once xDSL ships the fix.
"""

from __future__ import annotations

import re

from xdsl.dialects.builtin import AnyFloat
from xdsl.parser import AttrParser
from xdsl.utils.mlir_lexer import MLIRLexer

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

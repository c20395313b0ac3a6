"""Fixes to xDSL 0.75 that cannot be made by subclassing, applied on import.

Each is small, tested (test/unit/test_xdsl_fixes.py), listed in
third_party/README.md, and to be removed once xDSL ships the fix.
"""

from __future__ import annotations

import re

from xdsl.utils.mlir_lexer import MLIRLexer

# A string literal was matched with `"(?:[^"...]+|\\...)*"`: a `+` nested in a
# `*`, which backtracks exponentially when the closing quote is missing (a stray
# `"` in a long line took minutes). Matching one character per repetition
# accepts the same language in linear time.
MLIRLexer._unescaped_characters_regex = re.compile(  # pyright: ignore[reportPrivateUsage]
    r'"(?:[^"\\\n\v\f]|\\(?:["nt\\]|[0-9A-Fa-f]{2}))*"'
)

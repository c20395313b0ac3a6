"""Fixes to xDSL 0.75 that cannot be made by subclassing, applied on import.

Each is small, tested (test/unit/test_xdsl_fixes.py), listed in
third_party/README.md, and to be removed once xDSL ships the fix.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from xdsl.dialects.builtin import AnyFloat
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.ir.affine import AffineBinaryOpKind, AffineConstantExpr, AffineExpr
from xdsl.parser import AttrParser, Parser
from xdsl.parser.affine_parser import AffineParser
from xdsl.printer import Printer
from xdsl.traits import HasParent, IsolatedFromAbove, SingleBlockImplicitTerminator
from xdsl.utils.exceptions import ParseError, VerifyException
from xdsl.utils.lexer import Input, Token
from xdsl.utils.mlir_lexer import MLIRLexer, MLIRTokenKind, StringLiteral

from spyre_mlir.diagnostics import RegionVerifyException

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


def fresh_ssa_name(printer: Printer, hint: str | None) -> str:
    """A name for a value not yet named in `printer`'s scope: `hint`, made
    unique by the first free `_N`, or the next number without a hint."""
    if not hint:
        return printer._get_new_valid_name_id()  # pyright: ignore[reportPrivateUsage]
    used = printer.ssa_names
    name = hint
    if name in used:
        base = _SUFFIX.sub("", hint)
        n = max(used.get(base, 1), 1)
        while f"{base}_{n}" in used:
            n += 1
        name = f"{base}_{n}"
        used[base] = n + 1
    used.setdefault(name, 1)
    return name


def _print_ssa_value_unique(self: Printer, value: SSAValue) -> str:
    name = self._ssa_values.get(value)  # pyright: ignore[reportPrivateUsage]
    if name is None:
        name = fresh_ssa_name(self, value.name_hint)
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


# Affine constants are 64-bit (`index`), as in MLIR. xDSL kept any Python
# int: `-d1 + 18446744073709551616 >= 0` was read, and evaluating it over
# NumPy coordinates then crashed (OverflowError). MLIR's parser refuses a
# literal above 2^63 (`constant too large for index`, at the literal), and
# reads 2^63 itself as -2^63 (its uint64 reading, wrapped). Arithmetic on
# constants, which xDSL folds while building an expression as MLIR does,
# wraps to 64 bits as MLIR's does (`d0 * 4611686018427387904 * 2` is
# `d0 * -9223372036854775808`, `-(-9223372036854775808)` is itself), so every
# constant of a parsed map is 64-bit. A constant outside 64 bits in IR built
# by code is refused by the verifier (`spyre_mlir.module_checks`).
INT64_MIN, INT64_MAX = -(1 << 63), (1 << 63) - 1


def wrap_int64(value: int) -> int:
    """`value` as a two's-complement 64-bit integer (MLIR's int64_t)."""
    return ((value - INT64_MIN) & ((1 << 64) - 1)) + INT64_MIN


def _parse_primary_int64(self: AffineParser, parse_optional_bare_id):  # noqa: ANN001
    token = self._current_token  # pyright: ignore[reportPrivateUsage]
    if token.kind == MLIRTokenKind.INTEGER_LIT:
        value = token.kind.get_int_value(token.span)
        if value > 1 << 63:
            raise ParseError(token.span, "constant too large for index")
        if value == 1 << 63:
            self._consume_token()  # pyright: ignore[reportPrivateUsage]
            return AffineExpr.constant(INT64_MIN)
    return _parse_primary(self, parse_optional_bare_id)


_parse_primary = AffineParser._parse_primary  # pyright: ignore[reportPrivateUsage]
AffineParser._parse_primary = _parse_primary_int64  # pyright: ignore[reportPrivateUsage]


def _try_fold_constant_int64(self: AffineExpr, other: AffineExpr, kind: AffineBinaryOpKind):
    folded = _try_fold_constant_but_not_by_zero(self, other, kind)
    if isinstance(folded, AffineConstantExpr) and not INT64_MIN <= folded.value <= INT64_MAX:
        return AffineConstantExpr(wrap_int64(folded.value))
    return folded


_neg = AffineExpr.__neg__


def _neg_int64(self: AffineExpr) -> AffineExpr:
    if isinstance(self, AffineConstantExpr):
        return AffineConstantExpr(wrap_int64(-self.value))
    return _neg(self)


AffineExpr._try_fold_constant = _try_fold_constant_int64  # pyright: ignore[reportPrivateUsage]
AffineExpr.__neg__ = _neg_int64


# MLIR's wording for the parent and terminator traits, and MLIR's order:
# xDSL said "'scf.yield' expects parent op to be one of 'scf.for', 'scf.if',
# ..." and "'scf.if' terminates with operation X instead of scf.yield". The
# terminator check is one MLIR makes after verifying the ops in the regions
# (a region trait): an op there that fails (a `scf.condition` outside
# `scf.while`) is reported first, as MLIR reports it.
def _has_parent_verify(self: HasParent, op: Operation) -> None:
    parent = op.parent_op()
    if parent is None or isinstance(parent, self.op_types):
        return
    if len(self.op_types) == 1:
        raise VerifyException(f"expects parent op '{self.op_types[0].name}'")
    names = ", ".join(sorted(p.name for p in self.op_types))  # MLIR's lists are alphabetical
    raise VerifyException(f"expects parent op to be one of '{names}'")


def _single_block_implicit_terminator_verify(self: SingleBlockImplicitTerminator, op: Operation) -> None:
    for i, region in enumerate(op.regions):
        if len(region.blocks) > 1:
            raise VerifyException(f"expects region #{i} to have 0 or 1 blocks")
        if region.blocks and region.block.last_op is None:
            raise VerifyException("expects a non-empty block")
    for region in op.regions:
        if region.blocks and not isinstance(last := region.block.last_op, self.op_type):
            raise RegionVerifyException(f"expects regions to end with '{self.op_type.name}', found '{last.name}'")


HasParent.verify = _has_parent_verify
SingleBlockImplicitTerminator.verify = _single_block_implicit_terminator_verify


# MLIR's whitespace: space, tab, newline, carriage return, and a NUL byte
# (skipped, as MLIR's lexer skips one that is not the end of the buffer).
# xDSL took Python's `\s`, so it accepted a form feed or vertical tab, which
# MLIR refuses, and refused a NUL, which MLIR skips. MLIR's wording for a
# character that starts no token: `unexpected character`.
MLIRLexer._whitespace_regex = re.compile(r"((//[^\n]*(\n)?)|([ \t\n\r\x00]+))*")  # pyright: ignore[reportPrivateUsage]
_lex = MLIRLexer.lex


def _lex_with_mlirs_wording(self: MLIRLexer):  # noqa: ANN202
    try:
        return _lex(self)
    except ParseError as exc:
        if exc.msg.startswith("Unexpected character:"):
            raise ParseError(exc.span, "unexpected character") from None
        raise


MLIRLexer.lex = _lex_with_mlirs_wording


# `walk` without recursion. xDSL's `Operation/Region/Block.walk` are nested
# generators (`yield from` per level), so each op costs O(depth) and a walk
# of a deep nest (3000 nested regions, which the fuzzer makes) is quadratic
# and recurses as deep as the nest. Same order and flags, one explicit stack.
class _Emit:
    __slots__ = ("op",)

    def __init__(self, op: Operation):
        self.op = op


def _iterative_walk(first: Operation | Region | Block, reverse: bool, region_first: bool) -> Iterator[Operation]:
    stack: list[Iterator] = [iter((first,))]
    while stack:
        item = next(stack[-1], None)
        if item is None:
            stack.pop()
        elif isinstance(item, _Emit):
            yield item.op
        elif isinstance(item, Operation):
            if region_first:
                stack.append(iter((_Emit(item),)))
            else:
                yield item
            if item.regions:
                stack.append(iter(tuple(reversed(item.regions)) if reverse else item.regions))
        elif isinstance(item, Region):
            stack.append(iter(tuple(reversed(item.blocks)) if reverse else item.blocks))
        else:
            stack.append(reversed(item.ops) if reverse else iter(item.ops))


def _op_walk(self: Operation, *, reverse: bool = False, region_first: bool = False) -> Iterator[Operation]:
    return _iterative_walk(self, reverse, region_first)


def _region_walk(self: Region, *, reverse: bool = False, region_first: bool = False) -> Iterator[Operation]:
    return _iterative_walk(self, reverse, region_first)


def _block_walk(self: Block, *, reverse: bool = False, region_first: bool = False) -> Iterator[Operation]:
    return _iterative_walk(self, reverse, region_first)


Operation.walk = _op_walk
Region.walk = _region_walk
Block.walk = _block_walk


# `IsolatedFromAbove` in linear time. xDSL checks each operand with
# `op.is_ancestor(operand.owner)`, a walk from the value's owner up to the
# isolated op: in a d-deep nest each such walk costs up to d steps, so a
# function whose nested ops use values from above (the fuzzer's nests of
# thousands of regions; verified after every pass) costs O(d^2). Here each
# node's answer (is the isolated op its ancestor?) is remembered, so every
# node is climbed through at most once. Same traversal, same error, same
# verdict: a value defined outside the op, or by the op itself, is refused.
_isolated_from_above_verify_xdsl = IsolatedFromAbove.verify


def _isolated_from_above_verify(self: IsolatedFromAbove, op: Operation) -> None:
    inside: dict[int, bool] = {id(op): True}  # id(node) -> whether `op` is an ancestor of node (or node itself)

    def defined_inside(owner: Operation | Block) -> bool:
        path = []
        node = owner
        known = False  # the top reached without meeting `op`
        while node is not None:
            known = inside.get(id(node))
            if known is not None:
                break
            path.append(node)
            node = node.parent_node
        else:
            known = False
        for n in path:
            inside[id(n)] = known
        return known

    regions: list[Region] = list(op.regions)
    while regions:
        region = regions.pop()
        for block in region.blocks:
            for child_op in block.ops:
                for operand in child_op.operands:
                    owner = operand.owner
                    if owner is op or not defined_inside(owner):
                        raise VerifyException(
                            f"Operation using value defined out of its IsolatedFromAbove parent: {child_op}"
                        )
                if not child_op.has_trait(IsolatedFromAbove):
                    regions += child_op.regions


IsolatedFromAbove.verify = _isolated_from_above_verify


# An op in custom form that no dialect defines: MLIR's error, at the op name
# (`custom op 'ktdf.foo' is unknown`, or, when its dialect is not loaded,
# "Dialect `foo' not found for custom op 'foo.bar'"). xDSL reported it after
# the name: "Operation foo.bar is not registered", or, with unregistered ops
# allowed, "Operation builtin.unregistered does not have a custom format."
_get_op_by_name = Parser._get_op_by_name  # pyright: ignore[reportPrivateUsage]


def _custom_op_name_span(self: Parser, name: str) -> tuple[int, int] | None:
    """Where the bare op name `name` just read ends the text, if it was read
    bare (the custom form), not quoted (the generic form)."""
    text = self.lexer.input.content
    end = len(text[: self.pos].rstrip())
    start = end - len(name)
    if start < 0 or text[start:end] != name or text[end : end + 1] == '"':
        return None
    return start, end


def _get_op_by_name_as_mlir(self: Parser, name: str) -> type[Operation]:
    from xdsl.dialects.builtin import UnregisteredOp

    span = _custom_op_name_span(self, name)
    if span is None:
        return _get_op_by_name(self, name)
    op_type = self.ctx.get_optional_op(name, dialect_stack=self._parser_state.dialect_stack)  # pyright: ignore[reportPrivateUsage]
    if op_type is not None and not issubclass(op_type, UnregisteredOp):
        return op_type
    if "." in name:
        dialect = name.split(".", 1)[0]
        if dialect not in self.ctx.registered_dialect_names:
            self.raise_error(f"Dialect `{dialect}' not found for custom op '{name}' ", *span)  # sic, MLIR's space
        self.raise_error(f"custom op '{name}' is unknown", *span)
    # A name without a dialect is looked up in the enclosing op's default dialect too.
    default = self._parser_state.dialect_stack[-1]  # pyright: ignore[reportPrivateUsage]
    self.raise_error(f"custom op '{name}' is unknown (tried '{default}.{name}' as well)", *span)


Parser._get_op_by_name = _get_op_by_name_as_mlir  # pyright: ignore[reportPrivateUsage]


# A function declaration prints as MLIR prints it: `func.func private @g(i32)`
# without results, argument attributes kept (`@k(i32 {a.b}) -> (i32 {a.c})`);
# xDSL printed the bare function type (`@g(i32) -> ()`, attributes lost).
def _func_print(self, printer: Printer) -> None:  # noqa: ANN001
    from xdsl.dialects.utils import print_func_op_like

    if self.sym_visibility:
        printer.print_string(" " + self.sym_visibility.data)
    reserved = ("sym_name", "function_type", "sym_visibility", "arg_attrs", "res_attrs")
    if self.body.blocks:
        print_func_op_like(
            printer,
            self.sym_name,
            self.function_type,
            self.body,
            self.attributes,
            arg_attrs=self.arg_attrs,
            res_attrs=self.res_attrs,
            reserved_attr_names=reserved,
        )
        return
    printer.print_string(" ")
    printer.print_symbol_name(self.sym_name)
    _print_types_with_attrs(printer, self.function_type.inputs.data, self.arg_attrs, always_parens=True)
    outputs = self.function_type.outputs.data
    if outputs:
        printer.print_string(" -> ")
        _print_types_with_attrs(printer, outputs, self.res_attrs, always_parens=False)
    printer.print_op_attributes(self.attributes, reserved_attr_names=reserved, print_keyword=True)


def _print_types_with_attrs(printer: Printer, types, attrs, *, always_parens: bool) -> None:  # noqa: ANN001
    dicts = [d.data for d in attrs.data] if attrs is not None else [{} for _ in types]
    parens = always_parens or len(types) != 1 or bool(dicts[0]) or types[0].name == "builtin.function"
    if parens:
        printer.print_string("(")
    for i, (ty, attr_dict) in enumerate(zip(types, dicts)):
        if i:
            printer.print_string(", ")
        printer.print_attribute(ty)
        if attr_dict:
            printer.print_string(" ")
            printer.print_attr_dict(attr_dict)
    if parens:
        printer.print_string(")")


def _fix_func_print() -> None:
    from xdsl.dialects.func import FuncOp

    FuncOp.print = _func_print


_fix_func_print()


# `affine.apply #map(%i)[%s]` as MLIR prints it: xDSL put a space before the
# operands (`affine_map<...> (%i)`).
def _affine_apply_print(self, printer: Printer) -> None:  # noqa: ANN001
    m = self.map.data
    operands = tuple(self.mapOperands)
    printer.print_string(" ")
    printer.print_attribute(self.map)
    printer.print_string("(")
    printer.print_list(operands[: m.num_dims], printer.print_operand)
    printer.print_string(")")
    if m.num_symbols:
        printer.print_string("[")
        printer.print_list(operands[m.num_dims :], printer.print_operand)
        printer.print_string("]")


def _fix_affine_apply_print() -> None:
    from xdsl.dialects.affine import ApplyOp

    ApplyOp.print = _affine_apply_print


_fix_affine_apply_print()

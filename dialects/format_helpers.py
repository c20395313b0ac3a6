"""Parse and print helpers that the custom formats of several dialects share (ktdp, ktdf).

- `parse_kind`: one identifier of a closed list (a stage kind, a memory
  space, a loop type); another is a located error listing them.
- `parse_short_type`: a type of a dialect in full (`!ktdp.access_tile<...>`) or
  short (`<...>`) form, as an op's trailing type list writes it.
- `SSAAffineSpace` / `print_ssa_expr`: affine expressions written over SSA
  names (`[%r + %i, 0]`, `symbol(%n)`): each distinct name one dim, `symbol(%x)`
  one symbol.
- `print_attrs_sorted` / `split_props`: an op's properties and attributes
  printed as one sorted dictionary, and read back into the two.
- `parse_value_into` / `print_value_into`: `%value, %into attr-dict : T, H`,
  a value put somewhere (`ktdp.store` into an access tile, `ktdf.write_to_fifo`
  into a FIFO slot), and `parse_value_from` / `print_value_from`:
  `%from attr-dict : H -> T`, a value taken from there (`ktdp.load`,
  `ktdf.read_from_fifo`).
"""

from __future__ import annotations

from collections.abc import Sequence
from io import StringIO

from xdsl.ir import Attribute, Operation, ParametrizedAttribute, SSAValue
from xdsl.ir.affine import AffineDimExpr, AffineExpr
from xdsl.irdl import IRDLOperation
from xdsl.parser import AttrParser, Parser, UnresolvedOperand
from xdsl.parser.affine_parser import AffineParser
from xdsl.printer import Printer
from xdsl.utils.mlir_lexer import MLIRTokenKind

from spyre_mlir.analysis.affine import format_expr


def parse_kind(parser: AttrParser, kinds: Sequence[str], what: str) -> str:
    """An identifier, one of `kinds`; another is a parse error at it: "unknown {what} 'x', expected one of: ..."."""
    pos = parser.pos
    kind = parser.parse_identifier()
    if kind not in kinds:
        parser.raise_error(f"unknown {what} '{kind}', expected one of: {', '.join(kinds)}", pos, parser.pos)
    return kind


def parse_short_type(parser: Parser, cls: type[ParametrizedAttribute]) -> Attribute:
    """A type, in full (`!ktdp.x<...>`) or, when it is a `cls`, short (`<...>`) form."""
    if parser._current_token.kind == MLIRTokenKind.LESS:  # pyright: ignore[reportPrivateUsage]
        return cls.new(cls.parse_parameters(parser))
    return parser.parse_type()


class SSAAffineSpace:
    """Collects SSA operands met in an affine expression: each distinct name is
    one dim (first appearance), `symbol(%x)` one symbol."""

    def __init__(self, parser: Parser, dims: list[UnresolvedOperand] | None = None):
        self.parser = parser
        self.dims: list[UnresolvedOperand] = dims if dims is not None else []
        self.syms: list[UnresolvedOperand] = []

    @staticmethod
    def _key(o: UnresolvedOperand) -> tuple[str, int]:
        return (o.span.text, o.index)

    def _index(self, pool: list[UnresolvedOperand], o: UnresolvedOperand) -> int:
        for i, p in enumerate(pool):
            if self._key(p) == self._key(o):
                return i
        pool.append(o)
        return len(pool) - 1

    def parse_optional_leaf(self) -> AffineExpr | None:
        p = self.parser
        if p._current_token.kind == MLIRTokenKind.PERCENT_IDENT:  # pyright: ignore[reportPrivateUsage]
            return AffineExpr.dimension(self._index(self.dims, p.parse_unresolved_operand()))
        if p.parse_optional_keyword("symbol") is not None:
            p.parse_punctuation("(")
            o = p.parse_unresolved_operand()
            p.parse_punctuation(")")
            return AffineExpr.symbol(self._index(self.syms, o))
        return None

    def parse_expr(self) -> AffineExpr:
        return AffineParser(self.parser._parser_state)._parse_affine_expr(  # pyright: ignore[reportPrivateUsage]
            self.parse_optional_leaf
        )


def print_ssa_expr(printer: Printer, expr: AffineExpr, dims: Sequence[SSAValue], syms: Sequence[SSAValue] = ()):
    """`expr` with dim i printed as the name of `dims[i]` and symbol j as `symbol(<name of syms[j]>)`."""
    def name(e: AffineExpr) -> str:
        if isinstance(e, AffineDimExpr):
            return _ssa_name(printer, dims[e.position])
        return f"symbol({_ssa_name(printer, syms[e.position])})"

    printer.print_string(format_expr(expr, name))


def _ssa_name(printer: Printer, value: SSAValue) -> str:
    """The printed name of `value` without printing it."""
    saved = printer.stream
    printer.stream = StringIO()
    try:
        return "%" + printer.print_ssa_value(value)
    finally:
        printer.stream = saved


def print_attrs_sorted(printer: Printer, op: Operation, elided: set[str]) -> None:
    """The properties and attributes of `op` but `elided`, as one dictionary sorted by name (nothing if empty)."""
    attrs = {**op.properties, **op.attributes}
    shown = {k: attrs[k] for k in sorted(attrs) if k not in elided}
    if shown:
        printer.print_string(" ")
        printer.print_attr_dict(shown)


def split_props(op_cls: type[IRDLOperation], attrs: dict[str, Attribute]) -> tuple[dict, dict]:
    """A dictionary read back as (the properties of `op_cls`, the other attributes)."""
    prop_names = set(op_cls.get_irdl_definition().properties)
    props = {k: v for k, v in attrs.items() if k in prop_names}
    return props, {k: v for k, v in attrs.items() if k not in prop_names}


def parse_value_into(parser: Parser, op_cls: type[IRDLOperation], into_cls: type[ParametrizedAttribute]) -> Operation:
    """`%value, %into attr-dict : T, H` as an `op_cls` of those two operands; H in full or, for an
    `into_cls`, short form."""
    value = parser.parse_unresolved_operand()
    parser.parse_punctuation(",")
    into = parser.parse_unresolved_operand()
    attrs = parser.parse_optional_attr_dict()
    parser.parse_punctuation(":")
    value_type = parser.parse_type()
    parser.parse_punctuation(",")
    into_type = parse_short_type(parser, into_cls)
    return op_cls.create(
        operands=[parser.resolve_operand(value, value_type), parser.resolve_operand(into, into_type)],
        attributes=attrs,
    )


def print_value_into(printer: Printer, op: Operation, value: SSAValue, into: SSAValue, *, short: bool) -> None:
    """`%value, %into attr-dict : T, H` (H's short form `<...>` if `short`)."""
    printer.print_string(" ")
    printer.print_ssa_value(value)
    printer.print_string(", ")
    printer.print_ssa_value(into)
    print_attrs_sorted(printer, op, set())
    printer.print_string(" : ")
    printer.print_attribute(value.type)
    printer.print_string(", ")
    if short:
        into.type.print_parameters(printer)  # pyright: ignore[reportAttributeAccessIssue]
    else:
        printer.print_attribute(into.type)


def parse_value_from(parser: Parser, op_cls: type[IRDLOperation], from_cls: type[ParametrizedAttribute]) -> Operation:
    """`%from attr-dict : H -> T` as an `op_cls` of that operand and a result of type T; H in full or, for a
    `from_cls`, short form."""
    source = parser.parse_unresolved_operand()
    attrs = parser.parse_optional_attr_dict()
    parser.parse_punctuation(":")
    source_type = parse_short_type(parser, from_cls)
    parser.parse_punctuation("->")
    result_type = parser.parse_type()
    return op_cls.create(
        operands=[parser.resolve_operand(source, source_type)], result_types=[result_type], attributes=attrs
    )


def print_value_from(printer: Printer, op: Operation, source: SSAValue, result: SSAValue, *, short: bool) -> None:
    """`%from attr-dict : H -> T` (H's short form `<...>` if `short`)."""
    printer.print_string(" ")
    printer.print_ssa_value(source)
    print_attrs_sorted(printer, op, set())
    printer.print_string(" : ")
    if short:
        source.type.print_parameters(printer)  # pyright: ignore[reportAttributeAccessIssue]
    else:
        printer.print_attribute(source.type)
    printer.print_string(" -> ")
    printer.print_attribute(result.type)


class AngleBracketEnum:
    """Mixin put before `EnumAttribute[E]`: the value in angle brackets,
    `#dialect.name<value>`, as ODS's `EnumAttr` prints it by default (agen,
    vectorchain, spyreop)."""

    def print_parameter(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            printer.print_identifier_or_string_literal(self.data.value)  # pyright: ignore[reportAttributeAccessIssue]

    @classmethod
    def parse_parameter(cls, parser: AttrParser):
        with parser.in_angle_brackets():
            return parser.parse_str_enum(cls.enum_type)  # pyright: ignore[reportAttributeAccessIssue]

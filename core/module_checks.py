"""Whole-module checks run before the op verifiers, each a located error.

- A symbol defined twice in one symbol table: MLIR's `redefinition of symbol
  named 'f'` at the second definition, with a note at the first. xDSL's
  `SymbolTable` trait rejects it too, but from the table op (an implicit
  module has no location), so the error pointed nowhere.
- An affine map or set dividing by zero (`floordiv 0`, `ceildiv 0`, `mod 0`),
  in any attribute or type of any op. Stricter than MLIR, which accepts such
  a map and leaves the division undefined when it is evaluated; here the
  interpreter and the KTDP verifiers evaluate maps, and would fail with a
  ZeroDivisionError (or wrap silently in NumPy), so the map is refused where
  it is written instead.

Both run before the op verifiers so that no verifier ever evaluates a map
that divides by zero. Each is one linear walk.
"""

from __future__ import annotations

from xdsl.dialects.builtin import AffineMapAttr, AffineSetAttr, ArrayAttr, DictionaryAttr, StringAttr
from xdsl.ir import Attribute, Operation, ParametrizedAttribute
from xdsl.ir.affine import AffineBinaryOpExpr, AffineBinaryOpKind, AffineConstantExpr, AffineDimExpr, AffineExpr
from xdsl.traits import SymbolTable

from spyre_mlir.affine import format_expr
from spyre_mlir.diagnostics import error

_DIVISIONS = (AffineBinaryOpKind.FloorDiv, AffineBinaryOpKind.CeilDiv, AffineBinaryOpKind.Mod)


def verify_module_before_ops(root: Operation) -> None:
    """Raise a located `DiagnosticError` for the first redefined symbol or
    division by zero in an affine map or set under `root`."""
    for op in root.walk():
        if op.has_trait(SymbolTable):
            _check_symbol_table(op)
        _check_affine_divisors(op)


def _check_symbol_table(table: Operation) -> None:
    if len(table.regions) != 1 or len(table.regions[0].blocks) != 1:
        return  # xDSL's SymbolTable trait reports the shape
    seen: dict[StringAttr, Operation] = {}
    for op in table.regions[0].blocks[0].ops:
        name = op.get_attr_or_prop("sym_name")
        if not isinstance(name, StringAttr):
            continue
        first = seen.setdefault(name, op)
        if first is not op:
            raise error(op, f"redefinition of symbol named '{name.data}'", (first, "see existing symbol definition here"))


def _check_affine_divisors(op: Operation) -> None:
    attrs = [*op.properties.values(), *op.attributes.values(), *(r.type for r in op.results)]
    for region in op.regions:
        for block in region.blocks:
            attrs.extend(a.type for a in block.args)
    stack = attrs
    seen: set[int] = set()
    while stack:
        attr = stack.pop()
        if id(attr) in seen:
            continue
        seen.add(id(attr))
        exprs: tuple[AffineExpr, ...] = ()
        if isinstance(attr, AffineMapAttr):
            exprs = attr.data.results
        elif isinstance(attr, AffineSetAttr):
            exprs = tuple(e for c in attr.data.constraints for e in (c.lhs, c.rhs))
        elif isinstance(attr, ArrayAttr):
            stack.extend(attr.data)
        elif isinstance(attr, DictionaryAttr):
            stack.extend(attr.data.values())
        elif isinstance(attr, ParametrizedAttribute):
            stack.extend(p for p in attr.parameters if isinstance(p, Attribute))
        for expr in exprs:
            bad = _division_by_zero(expr)
            if bad is not None:
                raise error(op, f"'{op.name}' op affine expression `{format_expr(bad, _dim_or_sym)}` divides by zero")


def _division_by_zero(expr: AffineExpr) -> AffineExpr | None:
    """The first subexpression of `expr` that divides by the constant 0."""
    for e in expr.dfs():
        if (
            isinstance(e, AffineBinaryOpExpr)
            and e.kind in _DIVISIONS
            and isinstance(e.rhs, AffineConstantExpr)
            and e.rhs.value == 0
        ):
            return e
    return None


def _dim_or_sym(e: AffineExpr) -> str:
    return f"d{e.position}" if isinstance(e, AffineDimExpr) else f"s{e.position}"  # type: ignore[attr-defined]

"""Whole-module checks run before the op verifiers, each a located error.

- A symbol defined twice in one symbol table: MLIR's `redefinition of symbol
  named 'f'` at the second definition, with a note at the first. xDSL's
  `SymbolTable` trait rejects it too, but from the table op (an implicit
  module has no location), so the error pointed nowhere.
- A function declaration (no body) that is not `private`: MLIR's `symbol
  declaration cannot have public visibility`, which xDSL did not check.
- An affine map or set dividing by zero (`floordiv 0`, `ceildiv 0`, `mod 0`),
  in any attribute or type of any op. Stricter than MLIR, which accepts such
  a map and leaves the division undefined when it is evaluated; here the
  interpreter and the KTDP verifiers evaluate maps (`spyre_mlir.analysis.affine`,
  whose evaluator raises on a zero divisor), so the map is refused where it
  is written instead.
- An affine constant outside 64 bits (`index`), in IR built by code: the
  parser refuses such a literal as MLIR does (`constant too large for
  index`), and folding wraps to 64 bits as MLIR's does.
- An `index` integer attribute outside 64 bits (`arith.constant
  18446744073709551616 : index`): MLIR's parser refuses it (`integer
  constant out of range for attribute`); xDSL bounds only `iN` literals, so
  every pass after it would compute with a value no index holds.

- A dialect attribute (a discardable attribute named `dialect.name`) checked
  by its dialect wherever it appears, as MLIR's verifier calls
  `Dialect::verifyOperationAttribute` for every such attribute of every op:
  `ktdf_arch.*` intrinsics (`ktdf_arch.transfer_granularity`,
  `ktdf_arch.features`, ...) by `ktdf_arch.verify_intrinsics`, on a
  `func.func` as on a `ktdf_arch.datapath` (`DIALECT_ATTRIBUTE_VERIFIERS`).
  xDSL has no such hook: only the dialect's own ops checked them.

All run before the op verifiers so that no verifier ever evaluates a map
that divides by zero. Each is one linear walk.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from xdsl.dialects.builtin import (
    AffineMapAttr,
    AffineSetAttr,
    ArrayAttr,
    DictionaryAttr,
    IndexType,
    IntegerAttr,
    StringAttr,
)
from xdsl.ir import Attribute, Operation, ParametrizedAttribute
from xdsl.ir.affine import AffineBinaryOpExpr, AffineBinaryOpKind, AffineConstantExpr, AffineDimExpr, AffineExpr
from xdsl.traits import SymbolTable
from xdsl.utils.exceptions import VerifyException

from spyre_mlir.analysis.affine import format_expr
from spyre_mlir.diagnostics import error
from spyre_mlir.dialects.ktdf_arch import verify_intrinsics
from spyre_mlir.xdsl_fixes import INT64_MAX, INT64_MIN

_DIVISIONS = (AffineBinaryOpKind.FloorDiv, AffineBinaryOpKind.CeilDiv, AffineBinaryOpKind.Mod)

DIALECT_ATTRIBUTE_VERIFIERS: dict[str, Callable[[Operation], None]] = {
    "ktdf_arch": verify_intrinsics,
}
"""Dialect namespace -> its check of an op's attributes named `namespace.*` (MLIR's
`Dialect::verifyOperationAttribute`), run on every op that has one; a VerifyException
is a located error at the op."""


def verify_module_before_ops(root: Operation) -> None:
    """Raise a located `DiagnosticError` for the first redefined symbol, public
    declaration, ill-formed dialect attribute or division by zero in an affine
    map or set under `root`."""
    clean: set[int] = set()  # ids of attributes already searched
    for op in _walk(root):
        if op.has_trait(SymbolTable):
            _check_symbol_table(op)
        if op.name == "func.func":
            _check_declaration_visibility(op)
        if op.attributes:
            _check_dialect_attributes(op)
        _check_affine_divisors(op, clean)


def _walk(root: Operation) -> Iterator[Operation]:
    """Pre-order, iteratively: xDSL's recursive `walk` costs a generator
    frame per level for every op, quadratic in the nesting depth."""
    stack = [root]
    while stack:
        op = stack.pop()
        yield op
        for region in reversed(op.regions):
            for block in reversed(region.blocks):
                stack.extend(reversed(block.ops))


def _check_dialect_attributes(op: Operation) -> None:
    namespaces = {name.partition(".")[0] for name in op.attributes if "." in name}
    for namespace in sorted(namespaces & DIALECT_ATTRIBUTE_VERIFIERS.keys()):
        try:
            DIALECT_ATTRIBUTE_VERIFIERS[namespace](op)
        except VerifyException as exc:
            raise error(op, f"'{op.name}' op {exc}") from None


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


def _check_declaration_visibility(func: Operation) -> None:
    """MLIR's SymbolOpInterface check: a function without a body is a
    declaration, and must be `private` (xDSL accepted a public one)."""
    if func.regions and not func.regions[0].blocks:
        visibility = func.get_attr_or_prop("sym_visibility")
        if not isinstance(visibility, StringAttr) or visibility.data == "public":
            raise error(func, "'func.func' op symbol declaration cannot have public visibility")


def _check_affine_divisors(op: Operation, clean: set[int]) -> None:
    stack = [*op.properties.values(), *op.attributes.values(), *(r.type for r in op.results)]
    for region in op.regions:
        for block in region.blocks:
            stack.extend(a.type for a in block.args)
    while stack:
        attr = stack.pop()
        if id(attr) in clean:
            continue
        clean.add(id(attr))  # the search raises on the first bad map
        kind = _kind(type(attr))
        if kind is _LEAF:
            continue
        if kind is _PARAMETRIZED:
            if (
                type(attr) is IntegerAttr
                and isinstance(attr.type, IndexType)
                and not INT64_MIN <= attr.value.data <= INT64_MAX
            ):
                raise error(
                    op,
                    f"'{op.name}' op integer constant out of range for attribute: {attr.value.data} "
                    "does not fit in index (64 bits)",
                )
            stack.extend(p for p in attr.parameters if isinstance(p, Attribute))  # type: ignore[attr-defined]
        elif kind is _ARRAY:
            stack.extend(attr.data)  # type: ignore[attr-defined]
        elif kind is _DICT:
            stack.extend(attr.data.values())  # type: ignore[attr-defined]
        else:
            if kind is _MAP:
                exprs = attr.data.results  # type: ignore[attr-defined]
            else:
                exprs = [e for c in attr.data.constraints for e in (c.lhs, c.rhs)]  # type: ignore[attr-defined]
            for expr in exprs:
                bad = _division_by_zero(expr)
                if bad is not None:
                    raise error(op, f"'{op.name}' op affine expression `{format_expr(bad, _dim_or_sym)}` divides by zero")
                big = _constant_too_large(expr)
                if big is not None:
                    raise error(op, f"'{op.name}' op affine constant {big} is too large for index (64 bits)")


_LEAF, _PARAMETRIZED, _ARRAY, _DICT, _MAP, _SET = range(6)
_KINDS: dict[type, int] = {}


def _kind(cls: type) -> int:
    """How to search an attribute class, decided once per class (isinstance
    on xDSL's ABCs is slow, and the walk meets every type of every result)."""
    kind = _KINDS.get(cls)
    if kind is None:
        for base, kind in (
            (AffineMapAttr, _MAP),
            (AffineSetAttr, _SET),
            (ArrayAttr, _ARRAY),
            (DictionaryAttr, _DICT),
            (ParametrizedAttribute, _PARAMETRIZED),
        ):
            if issubclass(cls, base):
                break
        else:
            kind = _LEAF
        _KINDS[cls] = kind
    return kind


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


def _constant_too_large(expr: AffineExpr) -> int | None:
    """A constant of `expr` outside 64 bits (the parser refuses such a
    literal, and folding wraps; IR built by code may still hold one)."""
    for e in expr.dfs():
        if isinstance(e, AffineConstantExpr) and not INT64_MIN <= e.value <= INT64_MAX:
            return e.value
    return None


def _dim_or_sym(e: AffineExpr) -> str:
    return f"d{e.position}" if isinstance(e, AffineDimExpr) else f"s{e.position}"  # type: ignore[attr-defined]

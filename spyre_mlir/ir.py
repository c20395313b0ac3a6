"""Context, parsing, verification and printing with source locations.

`make_context()` registers every dialect lazily (xDSL's upstream dialects,
the ones we add in `dialects/`), so start-up only pays for what a file uses.
`parse_module()` attaches a `FileLineColLoc` to every op that has none, and
turns every failure while reading text into a located `DiagnosticError`.
"""

from __future__ import annotations

import bisect
import os
import re
from collections.abc import Callable, Iterable
from io import StringIO

from xdsl.context import Context
from xdsl.dialects.builtin import (
    AffineMapAttr,
    AffineSetAttr,
    ArrayAttr,
    FileLineColLoc,
    FloatAttr,
    IntAttr,
    IntegerAttr,
    ModuleOp,
    StringAttr,
    UnknownLoc,
    UnregisteredOp,
    f64,
    i64,
)
from xdsl.ir import Attribute, Dialect, Operation, ParametrizedAttribute, SSAValue
from xdsl.parser import Parser, UnresolvedOperand
from xdsl.parser.core import ForwardDeclaredValue
from xdsl.printer import Printer
from xdsl.traits import IsolatedFromAbove, NoTerminator
from xdsl.utils.exceptions import MultipleSpansParseError, ParseError, VerifyException
from xdsl.utils.lexer import Span
from xdsl.utils.mlir_lexer import MLIRTokenKind

from spyre_mlir import xdsl_fixes  # noqa: F401 - applied on import
from spyre_mlir.analysis.affine import format_map, format_set
from spyre_mlir.diagnostics import (
    Diagnostic,
    DiagnosticError,
    Location,
    NotedVerifyException,
    RegionVerifyException,
    error,
    internal_error,
)


def _ktdp() -> Dialect:
    from spyre_mlir.dialects.ktdp import KTDP

    return KTDP


def _spyre() -> Dialect:
    from spyre_mlir.dialects.spyre import SPYRE

    return SPYRE


def _ktdf() -> Dialect:
    from spyre_mlir.dialects.ktdf import KTDF

    return KTDF


def _spyre_loop() -> Dialect:
    from spyre_mlir.dialects.spyre_loop import SPYRE_LOOP

    return SPYRE_LOOP


def _sdscbundle() -> Dialect:
    from spyre_mlir.dialects.sdscbundle import SDSCBUNDLE

    return SDSCBUNDLE


def _spatial() -> Dialect:
    from spyre_mlir.dialects.spatial import SPATIAL

    return SPATIAL


def _dialect_in(module: str, name: str) -> Callable[[], Dialect]:
    """A factory that imports `spyre_mlir.dialects.<module>` on first use and returns its `name`."""

    def load() -> Dialect:
        import importlib

        return getattr(importlib.import_module(f"spyre_mlir.dialects.{module}"), name)

    load.__name__ = f"_{module}"
    return load


SPYRE_DIALECTS: dict[str, Callable[[], Dialect]] = {
    "ktdp": _ktdp,
    "spyre": _spyre,
    "ktdf": _ktdf,
    "spyre_loop": _spyre_loop,
    "sdscbundle": _sdscbundle,
    "spatial": _spatial,
    # dataflow-scheduler's device model and lowering dialects (../shared/corpus/dataflow-scheduler/dialects)
    "ktdf_arch": _dialect_in("ktdf_arch", "KTDF_ARCH"),
    "ktdf_lowering": _dialect_in("ktdf_lowering", "KTDF_LOWERING"),
    "dataflow": _dialect_in("dataflow", "DATAFLOW"),
    "symbol": _dialect_in("symbol", "SYMBOL"),
    "uniform": _dialect_in("uniform", "UNIFORM"),
    "agen": _dialect_in("agen", "AGEN"),
    "vectorchain": _dialect_in("vectorchain", "VECTORCHAIN"),
    "spyreop": _dialect_in("spyreop", "SPYREOP"),
}
"""Our dialects, by name. Upstream dialects come from xDSL."""

LOWERING_DIALECTS = frozenset({"ktdf_lowering", "dataflow", "symbol", "uniform", "agen", "vectorchain"})
"""dataflow-scheduler's dialects below the schedule IR: read, verified and
printed back, never executed (the interpreter names the op it cannot run)."""


UPSTREAM_EXTENSIONS: dict[str, str] = {
    "affine": "spyre_mlir.dialects.affine",
    "arith": "spyre_mlir.dialects.arith",
    "cf": "spyre_mlir.dialects.cf",
    "linalg": "spyre_mlir.dialects.linalg",
    "memref": "spyre_mlir.dialects.memref",
    "scf": "spyre_mlir.dialects.scf",
    "tensor": "spyre_mlir.dialects.tensor",
}
"""xDSL dialects, and our module whose `REPLACEMENTS` (op subclasses) are
swapped into them under the same names: upstream syntax and verifiers xDSL
lacks; its `ADDITIONS`, if any, are upstream ops xDSL does not have."""


def ancestor_in(op: Operation, block) -> Operation | None:
    """The op of `block` that is `op` or holds it; None when `op` is not under `block`."""
    while op.parent_block() is not block:
        parent = op.parent_op()
        if parent is None:
            return None
        op = parent
    return op


def replace_module_body(target: ModuleOp, source: ModuleOp) -> None:
    """Make `target` hold `source`'s ops (a pass that builds a new module returns it in place)."""
    for child in list(target.body.block.ops):
        child.detach()
        child.erase(safe_erase=False)
    for child in list(source.body.block.ops):
        child.detach()
        target.body.block.add_op(child)


def fill_locations(root: Operation) -> None:
    """Give every op under `root` that a pass created without a location the
    location of the op it was made for: the next located op of its block (a
    pass inserts index arithmetic, views, conversions right before their
    user), else its parent's. So that diagnostics about generated IR (an
    interpreter error in an outlined group, a data transfer out of bounds)
    point at source lines. Linear, without recursion."""
    stack: list[tuple[Operation, Attribute | None]] = [(root, None)]
    while stack:
        op, inherited = stack.pop()
        if isinstance(op.location, UnknownLoc) and inherited is not None:
            op.location = inherited
        own = op.location if not isinstance(op.location, UnknownLoc) else inherited
        for region in op.regions:
            for block in region.blocks:
                following = own
                for inner in reversed(list(block.ops)):
                    if not isinstance(inner.location, UnknownLoc):
                        following = inner.location
                    stack.append((inner, following))


def upstream_op(base: type[Operation]) -> type[Operation]:
    """The class to build ops of upstream op `base` with: our replacement of the
    same name (`UPSTREAM_EXTENSIONS`) if there is one, else `base` itself."""
    import importlib

    dialect = base.name.split(".", 1)[0]  # pyright: ignore[reportAttributeAccessIssue]
    if dialect not in UPSTREAM_EXTENSIONS:
        return base
    module = importlib.import_module(UPSTREAM_EXTENSIONS[dialect])
    for op in module.REPLACEMENTS:
        if op.name == base.name:  # pyright: ignore[reportAttributeAccessIssue]
            return op
    return base


def with_upstream_extensions(name: str, factory: Callable[[], Dialect]) -> Callable[[], Dialect]:
    """Load xDSL's dialect `name` with our op subclasses swapped in, lazily."""
    if name not in UPSTREAM_EXTENSIONS:
        return factory

    def load() -> Dialect:
        import importlib

        module = importlib.import_module(UPSTREAM_EXTENSIONS[name])
        replacements = {op.name: op for op in module.REPLACEMENTS}
        base = factory()
        ops = {op.name: replacements.get(op.name, op) for op in base.operations}
        for op in getattr(module, "ADDITIONS", []):  # MLIR's ops that xDSL lacks
            ops[op.name] = op  # (already there once spyre_mlir.universe extended xDSL's dialect)
        return Dialect(base.name, list(ops.values()), list(base.attributes))

    return load


def make_context(allow_unregistered: bool = False) -> Context:
    from xdsl.dialects import get_all_dialects

    ctx = Context(allow_unregistered=allow_unregistered)
    for name, factory in get_all_dialects().items():
        ctx.register_dialect(name, with_upstream_extensions(name, factory))
    for name, factory in SPYRE_DIALECTS.items():
        ctx.register_dialect(name, factory)
    return ctx


class LocatingParser(Parser):
    """xDSL's parser, plus a source location on every op, and any failure
    inside an op (including attribute verifiers run at construction) reported
    as a parse error at that op."""

    def __init__(self, ctx: Context, text: str, name: str, *, line_offset: int = 0):
        super().__init__(ctx, text, name)
        self._file_attr = StringAttr(name)
        self._line_offset = line_offset  # lines of the file before `text` (a split chunk)
        self._after_arrow = None
        self._line_starts: list[int] | None = None
        # name -> tuple index -> (placeholder, span of its use), one per use not yet resolved
        self._forward_uses: dict[str, dict[int, list[tuple[ForwardDeclaredValue, Span]]]] = {}
        self._definitions: dict[SSAValue, Span] = {}  # where each value is defined

    # MLIR's quoted dialect type, `!ktdp<"tile_future<...>">`: how we print a
    # type whose body real MLIR cannot bracket-balance (see SpyrePrinter).
    def _parse_extended_type_or_attribute(self, attr_or_dialect_name, is_type):
        if "." not in attr_or_dialect_name and self._current_token.kind == MLIRTokenKind.LESS:
            saved = (self._current_token, self.lexer.pos)
            start = self.pos
            self.parse_punctuation("<")
            if self._current_token.kind == MLIRTokenKind.STRING_LIT:
                body = self.parse_str_literal()
                self.parse_punctuation(">")
                sigil = "!" if is_type else "#"
                inner = Parser(self.ctx, f"{sigil}{attr_or_dialect_name}.{body}", self.lexer.input.name)
                try:
                    return inner.parse_type() if is_type else inner.parse_attribute()
                except ParseError as exc:
                    self.raise_error(f"in the quoted body of {sigil}{attr_or_dialect_name}: {exc}", start, self.pos)
            self._parser_state.current_token, self.lexer.pos = saved
        return super()._parse_extended_type_or_attribute(attr_or_dialect_name, is_type)

    # MLIR's arrow type list: after `->`, a single type needs no parentheses
    # (`iter_args(...) -> tensor<4xf16>`); xDSL's scf.for insists on them.
    def parse_punctuation(self, punctuation, context_msg=""):
        result = super().parse_punctuation(punctuation, context_msg)
        if punctuation == "->":
            self._after_arrow = self._current_token
        return result

    def parse_comma_separated_list(self, delimiter, parse, context_msg=""):
        if (
            self._after_arrow is self._current_token
            and delimiter is self.Delimiter.PAREN
            and self._current_token.kind != MLIRTokenKind.L_PAREN
        ):
            return [parse()]
        return super().parse_comma_separated_list(delimiter, parse, context_msg)

    # Forward references, as MLIR resolves them. xDSL kept one placeholder
    # per name, resolved by the next definition of that name anywhere:
    #  - a name never defined where it is used was reported at the end of the
    #    file (`values used but not defined: [%q]`); MLIR reports `use of
    #    undeclared SSA value name` at the (first) use;
    #  - an op's operand was resolved by a definition inside the op's own
    #    regions (`iter_args(%k = %i)` by the loop's `%i`), which left the op
    #    holding the placeholder (the verifier then crashed on it). MLIR
    #    resolves an op's operands after parsing its regions, whose names are
    #    gone by then. Here each use gets its own placeholder, and a
    #    definition resolves only those of ops already built (a placeholder
    #    of the op being parsed has no use yet).
    # Type mismatches get MLIR's wording too.
    def resolve_operand(self, operand: UnresolvedOperand, type: Attribute) -> SSAValue:
        name, index = operand.operand_name, operand.index
        values = self.ssa_values.get(name)
        if values is not None:
            if index >= len(values):
                return super().resolve_operand(operand, type)  # xDSL's tuple index error
            if values[index].type != type:
                raise NotedParseError(
                    operand.span,
                    f"use of value '%{name}' expects different type than prior uses: '{type}' vs '{values[index].type}'",
                    [(self._definitions.get(values[index], operand.span), "prior use here")],
                )
            return values[index]
        uses = self._forward_uses.setdefault(name, {}).setdefault(index, [])
        if uses and uses[0][0].type != type:
            raise NotedParseError(
                operand.span,
                f"use of value '%{name}' expects different type than prior uses: '{type}' vs '{uses[0][0].type}'",
                [(uses[0][1], "prior use here")],
            )
        placeholder = ForwardDeclaredValue(type)
        uses.append((placeholder, operand.span))
        return placeholder

    # Keep SSA names exactly as written: xDSL drops a trailing `_N` (`%a_1`
    # becomes `a`), so two parameters `%a_1`, `%a_2` would share one name and
    # the interpreter could not bind arguments by parameter name.
    def _register_ssa_definition(self, name, values, span) -> None:
        super()._register_ssa_definition(name, values, span)  # no forward references kept there
        for value in values:
            self._definitions[value] = span
        if SSAValue.is_valid_name(name):
            for value in values:
                value._name = name  # pyright: ignore[reportPrivateUsage] - the setter strips `_N`
        pending = self._forward_uses.get(name)
        if not pending:
            return
        for index, uses in list(pending.items()):
            built = [(p, at) for p, at in uses if p.uses]
            if not built:
                continue
            left = [(p, at) for p, at in uses if not p.uses]
            if index >= len(values):
                raise ParseError(built[0][1], "use of undeclared SSA value name")  # `%v#2` of a 1-value `%v`
            value = values[index]
            if value.type != built[0][0].type:
                raise NotedParseError(
                    span,
                    f"definition of SSA value '%{name}#{index}' has type '{value.type}'",
                    [(built[0][1], f"previously used here with type '{built[0][0].type}'")],
                )
            for placeholder, _ in built:
                placeholder.replace_all_uses_with(value)
            if left:
                pending[index] = left
            else:
                del pending[index]
        if not pending:
            del self._forward_uses[name]

    # An input that is empty or only comments is an empty module, as in mlir-opt.
    def parse_module(self, allow_implicit_module: bool = True) -> ModuleOp:
        if allow_implicit_module and self._current_token.kind == MLIRTokenKind.EOF:
            return ModuleOp([])
        module = super().parse_module(allow_implicit_module)
        undefined = [at for per_index in self._forward_uses.values() for uses in per_index.values() for _, at in uses]
        if undefined:  # as MLIR, at the end of the input, at the first use
            raise ParseError(min(undefined, key=lambda at: at.start), "use of undeclared SSA value name")
        return module

    def parse_operation(self) -> Operation:
        start = self._current_token.span
        try:
            op = super().parse_operation()
        except ParseError:
            raise
        except VerifyException as exc:  # attribute/type verifiers run while parsing
            raise ParseError(start, _describe(exc)) from exc
        except Exception as exc:  # noqa: BLE001 - a parser crashed on this op; still located
            raise ParseError(start, _crash_message(exc)) from exc
        if isinstance(op.location, UnknownLoc):
            line, col = self._line_col(start.start)
            op.location = FileLineColLoc(self._file_attr, IntAttr(line), IntAttr(col))
        return op

    def _line_col(self, offset: int) -> tuple[int, int]:
        # Span.get_location() counts newlines from the file start: quadratic
        # over a file when done per op. Bisect a table of line starts instead.
        if self._line_starts is None:
            text = self._parser_state.lexer.input.content
            self._line_starts = [0] + [m.end() for m in re.finditer("\n", text)]
        line = bisect.bisect_right(self._line_starts, offset)
        return line + self._line_offset, offset - self._line_starts[line - 1] + 1


class NotedParseError(MultipleSpansParseError):
    """A parse error with notes at other spans (MLIR's `note: prior use here`)."""

    def __init__(self, span: Span, msg: str, notes: list[tuple[Span, str]]):
        super().__init__(span, msg, None, notes)


def _crash_message(exc: Exception) -> str:
    """Blame our code ("internal error") or xDSL's parser for a crash."""
    import traceback

    innermost = traceback.extract_tb(exc.__traceback__)[-1]
    ours = "/xdsl/" not in innermost.filename
    what = f"{type(exc).__name__}: {_describe(exc)}"
    if ours:
        return f"internal error while parsing this operation: {what}"
    return f"malformed operation (the xDSL parser failed with {what})"


def _describe(exc: Exception) -> str:
    msg = str(exc).strip() or type(exc).__name__
    return msg.splitlines()[0] if "\n" in msg and len(msg) > 400 else msg


def parse_error_diagnostic(exc: ParseError) -> Diagnostic:
    loc = exc.span.get_location()
    message = exc.msg.strip()
    if not message or exc.msg[:1].isspace():
        # xDSL gives only the context of some failures (" in block definition").
        found = repr(exc.span.text) if exc.span.text else "end of input"
        message = f"unexpected {found}" + (f" {message}" if message else "")
    notes = []
    if isinstance(exc, NotedParseError):
        for span, note in exc.refs:
            at = span.get_location()
            notes.append(Diagnostic("note", note or "", Location(span.input.name, at.line, at.col)))
    return Diagnostic("error", message, Location(exc.span.input.name, loc.line, loc.col), notes)


def parse_module(text: str, name: str = "<string>", ctx: Context | None = None, *, line_offset: int = 0) -> ModuleOp:
    """Parse (not verify) `text`; bad text raises a located DiagnosticError.

    `line_offset`: lines of file `name` before `text` (a split chunk)."""
    ctx = ctx or make_context()
    try:
        return LocatingParser(ctx, text, name, line_offset=line_offset).parse_module()
    except ParseError as exc:
        diagnostic = parse_error_diagnostic(exc)
        if line_offset:
            for d in (diagnostic, *diagnostic.notes):
                if d.location is not None:
                    d.location = Location(d.location.file, d.location.line + line_offset, d.location.col)
        raise DiagnosticError(diagnostic) from None
    except Exception as exc:  # noqa: BLE001
        where = Location(name, 1 + line_offset, 1)
        raise DiagnosticError(Diagnostic("error", f"failed to parse: {_describe(exc)}", where)) from None


def verify(module: Operation) -> None:
    """Verify `module`, reporting the first failing op at its location.

    A `VerifyException` is bad input: a located error. Any other exception
    is a bug in a verifier (ours or xDSL's), reported as an internal error
    at the op, so that it is never mistaken for bad input.

    Around xDSL's op verifiers, the checks of MLIR's verifier that xDSL lacks:
    redefined symbols and affine divisions by zero before (no op verifier
    then evaluates such a map), SSA dominance after (it assumes valid ops)."""
    from spyre_mlir.dominance import verify_dominance
    from spyre_mlir.module_checks import verify_module_before_ops

    verify_module_before_ops(module)
    try:
        module.verify()
    except Exception as exc:  # noqa: BLE001 - located below
        whole_module_error = exc
    else:
        verify_dominance(module)
        return
    # Slow path, only on failure: find the op that fails on its own, in
    # MLIR's order (see `_first_failure`).
    found = _first_failure(module)
    if found is not None:
        op, exc = found
        if isinstance(exc, DiagnosticError):  # located already (a target fact read from a device that cannot be)
            raise exc
        if not isinstance(exc, VerifyException):
            raise internal_error(op, f"verifying '{op.name}'", exc) from exc
        raise error(op, f"'{op.name}' op {_verify_message(exc)}", *_notes_of(exc)) from None
    if not isinstance(whole_module_error, VerifyException):
        raise internal_error(module, "verifying the module", whole_module_error) from whole_module_error
    raise error(module, _verify_message(whole_module_error)) from None


def _first_failure(root: Operation) -> tuple[Operation, Exception] | None:
    """The op whose failure MLIR reports first, and its exception.

    MLIR checks an op on entering it (its invariants and `verify()`), then
    the ops in its regions, then, on leaving it, the checks that look into
    its regions (a `RegionVerifyException`: `verifyRegions`, region traits
    and interfaces). So: the first op in pre-order that fails, unless its
    failure is one of the latter and an op inside it fails too (then that
    op's, found the same way)."""
    for op in root.walk():
        try:
            op.verify(verify_nested_ops=False)
            _verify_blocks_of(op)
            continue
        except Exception as exc:  # noqa: BLE001 - a crash is reported as an internal error
            failure = exc
        # Outside the `except`: an inner op's exception must not chain to this one.
        if _is_region_check(failure):
            for region in op.regions:
                for block in region.blocks:
                    for inner in block.ops:
                        if (deeper := _first_failure(inner)) is not None:
                            return deeper
        return op, failure
    return None


def _verify_blocks_of(op: Operation) -> None:
    """MLIR's check of each block of `op`'s regions, made on entering the
    block (xDSL makes it only when verifying the whole op, nested ops
    included, so the slow path above could not locate it)."""
    if op.has_trait(NoTerminator) or isinstance(op, UnregisteredOp):
        return
    for region in op.regions:
        for block in region.blocks:
            if block.first_op is None:
                raise VerifyException("empty block: expect at least a terminator")


def _is_region_check(exc: BaseException | None) -> bool:
    """A RegionVerifyException, also when xDSL re-raised it wrapped."""
    while exc is not None:
        if isinstance(exc, RegionVerifyException):
            return True
        exc = exc.__cause__ or exc.__context__
    return False


def _notes_of(exc: BaseException) -> tuple:
    """Notes of a NotedVerifyException, also when xDSL re-raised it wrapped."""
    while exc is not None:
        if isinstance(exc, NotedVerifyException):
            return exc.notes
        exc = exc.__cause__ or exc.__context__
    return ()


def _verify_message(exc: Exception) -> str:
    msg = str(exc).strip()
    for prefix in ("Operation does not verify: ",):
        if msg.startswith(prefix):
            msg = msg[len(prefix) :]
    # xDSL appends the printed IR to some verifier messages; keep the first line.
    return msg.splitlines()[0] if msg else type(exc).__name__


QUOTED_TYPES = frozenset({"ktdp.tile_future"})
"""Types printed as `!dialect<"mnemonic<...>">` where their dialect prints generic."""

DEFAULT_DIALECTS: dict[str, str] = {"builtin.module": "builtin", "func.func": "func"}
"""MLIR's `OpAsmOpInterface::getDefaultDialect` of upstream ops: in their
regions, ops of that dialect print without its prefix (`return`, `call`).
An op class of ours declares its own as a `DEFAULT_DIALECT` class attribute."""

_ALIAS_MARK = "\x00"  # brackets an alias placeholder in the first printing pass


def default_dialect_of(op: Operation | None) -> str:
    """The dialect whose prefix MLIR elides in `op`'s regions ("" for none)."""
    if op is None:
        return "builtin"  # MLIR's printer starts with `builtin` as the default
    return DEFAULT_DIALECTS.get(op.name) or getattr(type(op), "DEFAULT_DIALECT", "")


class SpyrePrinter(Printer):
    """xDSL's printer, printing as MLIR prints:

    - affine maps and sets spelled as MLIR spells them (`-d0 + 95 >= 0`, not
      `((d0 * -1) + 95) >= 0`), and, when a whole module is printed, named
      by aliases defined before it (`#map = affine_map<...>`, `#set1`);
    - the name of an op in custom form without the default dialect of the
      op whose region holds it (`module`, `return` in a `func.func`);
    - `i64` integers and `f64` floats in arrays without their type (`[2, 2]`);
    - dictionaries (attributes, properties) sorted by name;
    - optionally the ops of some dialects (ours) in generic form, so that
      upstream MLIR, which knows only the upstream dialects, reads the rest
      in their custom form."""

    generic_dialects: frozenset[str] = frozenset()

    _all_generic: bool | None = None  # print_generic_format as given (every op generic)
    _aliases: dict[Attribute, int] | None = None  # alias placeholder per map/set, when aliasing
    _no_alias_depth = 0  # > 0 inside a quoted type body, where an alias would not be read

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._default_dialects: list[str] = []

    def print_op(self, op: Operation) -> None:
        if self._all_generic is None:
            self._all_generic = self.print_generic_format
        if self._all_generic or not self.generic_dialects:
            self._print_op(op)
            return
        # Generic exactly for the ops of `generic_dialects`, also for the ops
        # nested in their regions (other dialects' ops there print custom).
        saved = self.print_generic_format
        self.print_generic_format = op.dialect_name() in self.generic_dialects
        try:
            self._print_op(op)
        finally:
            self.print_generic_format = saved

    def _print_op(self, op: Operation) -> None:
        if self.print_generic_format or isinstance(op, UnregisteredOp) or Operation.print is type(op).print:
            super().print_op(op)  # the generic form: the full, quoted name
            return
        has_custom_form = getattr(op, "has_custom_form", None)
        if has_custom_form is not None and not has_custom_form():
            # An op whose custom form cannot hold what this one holds (e.g. an
            # sdscbundle.sdsc_execute without symbol_ids): generic, with its regions.
            self.print_generic_format = True
            try:
                super().print_op(op)
            finally:
                self.print_generic_format = False
            return
        # xDSL's print_op for the custom form, with the default dialect elided.
        scope = op.has_trait(IsolatedFromAbove)
        begin = self._current_column
        self._print_results(op)
        if scope:
            self.enter_scope()
        default = self._default_dialects[-1] if self._default_dialects else default_dialect_of(op.parent_op())
        name = op.name
        if default and name.startswith(default + ".") and name.count(".") == 1:
            name = name[len(default) + 1 :]
        self.print_string(name)
        if op in self.diagnostic.op_messages:
            for message in self.diagnostic.op_messages[op]:
                self._add_message_on_next_line(message, begin, self._current_column)
        op.print(self)
        if self.print_debuginfo:
            self.print_string(" ")
            self.print_attribute(op.location)
        if scope:
            self.exit_scope()

    def _print_results(self, op: Operation) -> None:
        # MLIR names the results of an op as one group, `%0:2 = ...`, used as
        # `%0#1`; results written with names of their own keep them.
        results = op.results
        hints = {r.name_hint for r in results}
        if len(results) < 2 or len(hints) != 1 or any(r in self._ssa_values for r in results):
            super()._print_results(op)
            return
        name = xdsl_fixes.fresh_ssa_name(self, hints.pop())
        for i, result in enumerate(results):
            self._ssa_values[result] = f"{name}#{i}"
        self.print_string(f"%{name}:{len(results)} = ")

    def print_region(self, region, *args, **kwargs) -> None:
        self._default_dialects.append(default_dialect_of(region.parent_op()))
        try:
            super().print_region(region, *args, **kwargs)
        finally:
            self._default_dialects.pop()

    def print_attribute(self, attribute: Attribute) -> None:
        if attribute.name in QUOTED_TYPES and attribute.name.split(".")[0] in self.generic_dialects:
            # Real MLIR only bracket-balances an unregistered type's body, and the
            # `>` of `>=` in a set closes it: print the quoted form instead.
            assert isinstance(attribute, ParametrizedAttribute)
            dialect, mnemonic = attribute.name.split(".", 1)
            self.print_string(f'!{dialect}<"{mnemonic}')
            self._no_alias_depth += 1
            try:
                attribute.print_parameters(self)
            finally:
                self._no_alias_depth -= 1
            self.print_string('">')
        elif isinstance(attribute, AffineMapAttr | AffineSetAttr):
            if self._aliases is not None and not self._no_alias_depth:
                number = self._aliases.setdefault(attribute, len(self._aliases))
                self.print_string(f"{_ALIAS_MARK}{number}{_ALIAS_MARK}")
            elif isinstance(attribute, AffineMapAttr):
                self.print_string(f"affine_map<{format_map(attribute.data)}>")
            else:
                self.print_string(f"affine_set<{format_set(attribute.data)}>")
        elif isinstance(attribute, ArrayAttr):
            with self.in_square_brackets():
                self.print_list(attribute.data, self._print_array_element)
        else:
            super().print_attribute(attribute)

    def print_attr_dict(self, attr_dict) -> None:
        # MLIR's dictionaries (attributes, properties) are sorted by name.
        super().print_attr_dict(dict(sorted(attr_dict.items())))

    def _print_array_element(self, attribute: Attribute) -> None:
        # MLIR elides the default types of integers and floats in an array.
        if isinstance(attribute, IntegerAttr) and attribute.type == i64:
            self.print_int(attribute.value.data, i64)
        elif isinstance(attribute, FloatAttr) and attribute.type == f64:
            attribute.print_without_type(self)
        else:
            self.print_attribute(attribute)

    def resolve_aliases(self, text: str) -> str:
        """`text` printed with alias placeholders: MLIR's alias definitions
        (maps then sets, each numbered in order of first use), then `text`
        with each placeholder replaced by its alias."""
        if not self._aliases:
            return text
        names: dict[int, str] = {}
        definitions: list[str] = []
        for kind, prefix, spell in (
            (AffineMapAttr, "map", lambda a: f"affine_map<{format_map(a.data)}>"),
            (AffineSetAttr, "set", lambda a: f"affine_set<{format_set(a.data)}>"),
        ):
            of_kind = [(n, a) for a, n in self._aliases.items() if isinstance(a, kind)]
            for i, (number, attribute) in enumerate(sorted(of_kind, key=lambda t: t[0])):
                names[number] = f"#{prefix}{i if i else ''}"
                definitions.append(f"{names[number]} = {spell(attribute)}\n")
        body = re.sub(f"{_ALIAS_MARK}(\\d+){_ALIAS_MARK}", lambda m: names[int(m.group(1))], text)
        return "".join(definitions) + body


def print_ir(
    op: Operation,
    generic: bool = False,
    debuginfo: bool = False,
    generic_dialects: Iterable[str] = (),
    local_scope: bool = False,
) -> str:
    """Print `op` as MLIR prints it (see SpyrePrinter); `generic_dialects` are
    printed in generic form. A module that is not nested in an op is printed
    with MLIR's aliases for its affine maps and sets, unless `local_scope`
    (MLIR's `--mlir-print-local-scope`)."""
    out = StringIO()
    printer = SpyrePrinter(stream=out, print_generic_format=generic, print_debuginfo=debuginfo)
    printer.generic_dialects = frozenset(generic_dialects)
    if isinstance(op, ModuleOp) and op.parent is None and not local_scope:
        printer._aliases = {}
    printer.print_op(op)
    out.write("\n")
    return printer.resolve_aliases(out.getvalue())


def read_source(source: str | os.PathLike[str]) -> tuple[str, str]:
    """(text, name) of a file, of stdin, or of MLIR text given as a string.

    - `"-"` is stdin; an `os.PathLike` (e.g. `pathlib.Path`) is always a path.
    - A `str` naming an existing file is that file, whatever it contains.
    - Any other `str` is MLIR text when it contains a newline, `{` or `(`,
      else a path (which then does not exist: `FileNotFoundError`).

    Command-line tools pass `Path(argument)`: an argument is always a path.
    Bytes that are not UTF-8 are kept (as surrogate escapes), so a string
    attribute holding them prints them back as `\\XX` escapes, as MLIR does."""
    import sys

    if isinstance(source, str) and source == "-" or isinstance(source, os.PathLike) and os.fspath(source) == "-":
        stream = sys.stdin.buffer if hasattr(sys.stdin, "buffer") else None
        if stream is None:
            return sys.stdin.read(), "<stdin>"
        return stream.read().decode("utf-8", "surrogateescape"), "<stdin>"
    if isinstance(source, str) and not _is_file(source) and any(c in source for c in "\n{("):
        return source, "<string>"
    path = os.fspath(source)
    with open(path, "rb") as f:
        return f.read().decode("utf-8", "surrogateescape"), path


def _is_file(name: str) -> bool:
    try:
        return os.path.isfile(name)
    except (OSError, ValueError):  # too long for a path, or a NUL byte: text
        return False

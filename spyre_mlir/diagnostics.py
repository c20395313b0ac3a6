"""The one diagnostics path: errors, warnings and notes with source locations.

Everything a user sees about bad input goes through here and is rendered as
MLIR does: `FILE:LINE:COL: error: MESSAGE`, the source line, a caret.
Ops get a `FileLineColLoc` when parsed (see `spyre_mlir.ir`), so verifier and
pass diagnostics point at the op's source. A transformation that does not
apply says why with the one `Refusal` (an op, a message, an optional kind),
which becomes such an error where the refusal is the user's answer.
"""

from __future__ import annotations

import contextvars
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from enum import Enum

from xdsl.dialects.builtin import FileLineColLoc
from xdsl.ir import Operation
from xdsl.utils.exceptions import VerifyException


@dataclass(frozen=True)
class Location:
    file: str
    line: int
    col: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"


@dataclass
class Diagnostic:
    severity: str  # "error" | "warning" | "note" | "remark"
    message: str
    location: Location | None = None
    notes: list[Diagnostic] = field(default_factory=list)

    def render(self, sources: dict[str, str] | None = None) -> str:
        head = f"{self.location}: " if self.location else ""
        out = [f"{head}{self.severity}: {self.message}"]
        if self.location and sources and (text := sources.get(self.location.file)) is not None:
            lines = text.splitlines()
            if 1 <= self.location.line <= len(lines):
                src = lines[self.location.line - 1]
                out.append(src)
                out.append(" " * (self.location.col - 1) + "^")
        for note in self.notes:
            out.append(note.render(sources))
        # Source bytes that are not UTF-8 are kept as surrogate escapes; show them as `\xNN`.
        return "\n".join(out).encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


class RegionVerifyException(VerifyException):
    """A check MLIR makes on leaving an op, after verifying the ops nested in
    its regions (`verifyRegions`, region traits such as
    SingleBlockImplicitTerminator, RegionBranchOpInterface): when an op
    nested in the regions fails too, MLIR reports that op's error first, and
    so does `spyre_mlir.ir.verify`."""


class NotedVerifyException(VerifyException):
    """A verifier failure with notes at other ops (`note: ... defined here`)."""

    def __init__(self, message: str, *notes: tuple[Operation | None, str]):
        super().__init__(message)
        self.notes = notes


class NotedRegionVerifyException(NotedVerifyException, RegionVerifyException):
    """A RegionVerifyException with notes."""


class DiagnosticError(Exception):
    """A user-facing error: bad input or a refused transformation."""

    def __init__(self, diagnostic: Diagnostic):
        super().__init__(diagnostic.message)
        self.diagnostic = diagnostic


class Refusal(Exception):
    """Why a transformation does not apply, found before anything changes: at
    `op` (None when no one op is to blame), a message, and optionally a typed
    `kind` (an Enum member; e.g. the loop transformations' `RefusalKind`).

    Raised by an analysis deep in a pass, or returned as a value where a
    refusal is an answer rather than a failure (the tiling search keeps it as
    a candidate's reason). `str()` is `KIND: message` with a kind, else the
    message; `error()` makes it the user-facing located error."""

    def __init__(self, op: Operation | None, message: str, kind: Enum | None = None):
        super().__init__(op, message, kind)
        self.op = op
        self.message = message
        self.kind = kind

    def __str__(self) -> str:
        return f"{self.kind.name}: {self.message}" if self.kind is not None else self.message

    def __repr__(self) -> str:
        return f"Refusal({self})"

    def __eq__(self, other: object) -> bool:
        """The same refusal: the same kind and message at the same op."""
        return isinstance(other, Refusal) and (self.op, self.message, self.kind) == (other.op, other.message, other.kind)

    def __hash__(self) -> int:
        return hash((self.message, self.kind))

    def error(self, *notes: tuple[Operation | None, str]) -> DiagnosticError:
        """The refusal as an error at its op (for `raise`), with optional notes at other ops."""
        return error(self.op, self.message, *notes)


def location_of(op: Operation | None) -> Location | None:
    """The source location of `op`, or of its nearest located ancestor."""
    while op is not None:
        loc = op.location
        if isinstance(loc, FileLineColLoc):
            return Location(loc.filename.data, loc.line.data, loc.column.data)
        op = op.parent_op()
    return None


def error(op: Operation | None, message: str, *notes: tuple[Operation | None, str]) -> DiagnosticError:
    """Build (for `raise`) an error at `op`, with optional notes at other ops."""
    return DiagnosticError(
        Diagnostic(
            "error",
            message,
            location_of(op),
            [Diagnostic("note", m, location_of(o)) for o, m in notes],
        )
    )


INTERNAL_ERROR = "internal error"
"""How every message about a bug in spyre-mlir (not in the input) begins."""


def internal_error(op: Operation | None, doing: str, exc: BaseException) -> DiagnosticError:
    """An error at `op` for a bug met while `doing` something: never bad input."""
    what = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    detail = f"{type(exc).__name__}: {what}" if what else type(exc).__name__
    return DiagnosticError(
        Diagnostic("error", f"{INTERNAL_ERROR} while {doing}: {detail} (a bug in spyre-mlir; please report it)", location_of(op))
    )


_collected: contextvars.ContextVar[list[Diagnostic] | None] = contextvars.ContextVar("spyre_diagnostics", default=None)


def warning(op: Operation | None, message: str) -> None:
    """Emit a warning; collected by the enclosing `collect()`, else ignored."""
    sink = _collected.get()
    if sink is not None:
        sink.append(Diagnostic("warning", message, location_of(op)))


def remark(op: Operation | None, message: str) -> None:
    sink = _collected.get()
    if sink is not None:
        sink.append(Diagnostic("remark", message, location_of(op)))


@contextmanager
def collect() -> Iterator[list[Diagnostic]]:
    """Collect the warnings and remarks emitted inside the block."""
    sink: list[Diagnostic] = []
    token = _collected.set(sink)
    try:
        yield sink
    finally:
        _collected.reset(token)

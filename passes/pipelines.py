"""Named pipelines and the pass manager behind `spyre-opt` and the Python API.

    pm = spyre_mlir.PassManager.parse("cse,spyre-coarse-tile{slices=2 lx-bytes=4096}")
    pm = spyre_mlir.PassManager.from_pipeline("ktir-to-bundle{out-dir=/tmp/b slices=2}")
    pm = spyre_mlir.PassManager.from_pipeline("ktir-to-bundle{out-dir=/tmp/b}", target=load_target("card.json"))
    pm.run(module)            # verifies after every pass; raises DiagnosticError

Before each pass of ours the pass manager checks its stage contract
(`spyre_mlir.passes.contracts`): a pass run out of order is a located error
naming what to run first. With `target`, the module records that target
(`spyre_mlir.target.set_target`) before the first pass, so every pass reads
it with `target_of`. A device the module declares is read only when a pass
asks for a fact it may state (a pass that asks none runs on a module whose
device cannot be read); one given as `device` is checked before the first pass.

Options are written as MLIR writes them (`parse_option_list`: space- or
comma-separated `name=value`, quotes around a value with spaces or commas)
and typed by the pass's dataclass fields (`build_pass`), for both a pass
list and a named pipeline. The pipeline table below is the only place
pipelines are defined.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from spyre_mlir.diagnostics import INTERNAL_ERROR, Diagnostic, DiagnosticError, error
from spyre_mlir.target import Target

PIPELINES: dict[str, tuple[str, str]] = {
    # name: (pass list, what it is for)
    "default": (
        "ktdp-normalize-memory-space,spyre-fold-reshapes,cse,canonicalize",
        "clean up a KTIR kernel: one memory-space spelling, no no-op reshape pairs, CSE, canonicalize",
    ),
    "ktir-to-schedule": (
        "spyre-raise-counted-loops,spyre-physicalize-layouts,spyre-fold-reshapes,cse,canonicalize,"
        "ktdp-extract-compute-groups,ktdf-expose-reduction-loops,ktdf-build-pipelines",
        "lower a kernel to the schedule IR: counted while loops raised, physical layouts, one outlined function per "
        "compute group, loop-carried tensors in LX buffers, load/compute/store ktdf pipelines (a group's computes "
        "share one compute stage: no HBM round trip between them, as in dataflow-scheduler)",
    ),
    "ktir-to-bundle": (
        "spyre-raise-counted-loops,spyre-physicalize-layouts,spyre-fold-reshapes,cse,canonicalize,"
        "ktdp-extract-compute-groups,spyre-coarse-tile,spyre-distribute-work,spyre-plan-scratchpad,spyre-emit-bundle",
        "lower a kernel to the runtime's bundle: compute groups tiled into counted loops whose tiles fit "
        "LX, the split across cores recorded, intermediates placed in LX, DIR/bundle.mlir and DIR/sdsc_N.json "
        "written (out-dir=DIR is required; format=superdsc, the default: torch-spyre's SuperDSC files, refusing what "
        'they cannot express, with scalars="n_rows=4096,..." fixing the index scalars its trips and addresses need; '
        "format=ktir: ours, for every kernel)",
    ),
    "ktir-to-spatial": (
        "spyre-raise-counted-loops,spyre-physicalize-layouts,spyre-fold-reshapes,cse,canonicalize,"
        "spatial-tile,spatial-place,spatial-fuse-readers,spatial-size-buffers,spatial-synthesize-handshakes,"
        "spatial-verify",
        "lower a kernel to a verified spatial program: one site per grid block with load, compute and store "
        "engines, blocks placed on cores, tiles several cores read multicast, LX buffers sized, semaphore "
        "handshakes, the choreography simulated",
    ),
    "physicalize": (
        "spyre-physicalize-layouts,spyre-fold-reshapes,cse,canonicalize",
        "rewrite a kernel with spyre.tensor_layout markers onto physical (stick) layouts, then clean up",
    ),
}
"""Named pipelines (`spyre-opt --pipeline NAME`)."""


AfterPassHook = Callable[[ModulePass, ModuleOp, float], None]


@dataclass
class PassManager:
    """An ordered list of module passes, run with verification after each.

    With `verify_each`, the module is verified before the first pass (an
    invalid input is the user's error) and after every pass (invalid output
    is a bug in that pass: an internal error). `verify_input=False` skips
    the first check for a caller that has just verified the module. Each
    pass of ours runs only on a module in a stage its contract takes
    (`contracts.check`). `target`, when given, is recorded on the module
    before the first pass, in place of any `spyre.target` attribute it has
    (`spyre_mlir.target.load_target` reads one from a file). `device`, a
    `ktdf_arch.device` file, is declared in the module before that
    (`spyre_mlir.target.attach_device`): the target is then its facts."""

    passes: list[ModulePass]
    verify_each: bool = True
    after_pass: list[AfterPassHook] = field(default_factory=list)
    ctx: Context | None = None
    verify_input: bool = True
    target: Target | None = None
    device: str | None = None

    @classmethod
    def parse(cls, spec: str, **kwargs) -> PassManager:
        """Build from a pass list in MLIR's syntax: `"cse,spyre-coarse-tile{slices=2 lx-bytes=4096}"`
        (see `parse_option_list` for the options)."""
        from spyre_mlir.passes import get_all_passes

        available = get_all_passes()
        try:
            items = _split_pass_list(spec)
        except OptionSyntaxError as exc:
            raise DiagnosticError(Diagnostic("error", f"invalid pass pipeline '{spec}': {exc}")) from None
        passes: list[ModulePass] = []
        for name, text in items:
            if name not in available:
                raise DiagnosticError(Diagnostic("error", _unknown_pass(name)))
            try:
                passes.append(build_pass(name, parse_option_list(text or "")))
            except OptionSyntaxError as exc:
                raise DiagnosticError(Diagnostic("error", f"invalid options for pass '{name}': {exc}")) from None
        return cls(passes, **kwargs)

    @classmethod
    def from_pipeline(cls, name: str, **kwargs) -> PassManager:
        """Build a named pipeline from the table `PIPELINES`: `NAME` or
        `NAME{key=value ...}` (the option syntax of `parse`), each option
        given to the passes of the pipeline that take it; an option no pass
        takes is an error."""
        from spyre_mlir.passes import get_all_passes, pass_options

        match = re.match(r"\s*([\w.-]+)", name)
        base = match.group(1) if match else name
        if match is None or base not in PIPELINES:
            raise DiagnosticError(
                Diagnostic("error", f"unknown pipeline '{name}'; available: {', '.join(sorted(PIPELINES))}")
            )
        try:
            items = _split_pass_list(name)
            if len(items) > 1:
                raise OptionSyntaxError(f"expected one pipeline name and its options, got also '{items[1][0]}'")
            options = parse_option_list(items[0][1] or "")
        except OptionSyntaxError as exc:
            raise DiagnosticError(Diagnostic("error", f"invalid pipeline '{name}': {exc}")) from None
        available = get_all_passes()
        used: set[str] = set()
        passes: list[ModulePass] = []
        for pass_name in PIPELINES[base][0].split(","):
            if pass_name not in available:  # a broken table: not the user's error
                raise AssertionError(f"pipeline '{base}' names unknown pass '{pass_name}'")
            takes = {o.name for o in pass_options(pass_name)}
            mine = [o for o in options if o.name in takes]
            used.update(o.name for o in mine)
            try:
                passes.append(build_pass(pass_name, mine, name_the_pass=True))
            except OptionSyntaxError as exc:
                raise DiagnosticError(Diagnostic("error", f"invalid pipeline '{name}': {exc}")) from None
        unused = [o.name for o in options if o.name not in used]
        if unused:
            raise DiagnosticError(Diagnostic(
                "error", f"pipeline '{base}' has no pass taking option '{unused[0]}' (see `spyre-opt --list-pipelines`)"
            ))
        return cls(passes, **kwargs)

    @property
    def names(self) -> list[str]:
        return [p.name for p in self.passes]

    def run(self, module: ModuleOp) -> ModuleOp:
        """Run every pass in order on `module` (in place) and return it.

        Runs on a large stack (`spyre_mlir.deep.call_deep`; inline when
        already on one), so deeply nested IR does not hit the recursion limit."""
        from spyre_mlir.deep import call_deep

        return call_deep(self._run, module)

    def _run(self, module: ModuleOp) -> ModuleOp:
        from spyre_mlir.ir import make_context, verify
        from spyre_mlir.passes import contracts
        from spyre_mlir.target import DeviceFactError, TargetError, attach_device, read_device, set_target, target_of

        ctx = self.ctx or make_context()
        if self.verify_each and self.verify_input and self.passes:
            verify(module)  # an invalid input is the user's error, before any pass sees it
        try:
            if self.device is not None:
                attach_device(module, self.device)
        except TargetError as exc:
            raise DiagnosticError(Diagnostic("error", str(exc))) from None
        if self.target is not None:
            set_target(module, self.target)
        try:
            target = target_of(module)  # a bad spyre.target attribute: the user's error, at the module
        except TargetError as exc:
            raise error(module, str(exc)) from None
        if self.device is not None:
            read_device(target)  # --device and --target checked to agree up front (a module's own device: when needed)
        for p in self.passes:
            contracts.check(module, p.name)  # a pass out of order: the user's error, before it runs
            start = time.perf_counter()
            try:
                p.apply(ctx, module)
            except DiagnosticError:
                raise
            except Exception as exc:  # noqa: BLE001 - xDSL passes signal refusal with exceptions
                raise _pass_failure(p, module, exc) from exc
            elapsed = time.perf_counter() - start
            if self.verify_each:
                try:
                    verify(module)
                except DeviceFactError:
                    raise  # a verifier needed a fact of a device that cannot be read: the user's error
                except DiagnosticError as exc:
                    raise _invalid_output(p, exc) from None
            for hook in self.after_pass:
                hook(p, module, elapsed)
        return module

    def __str__(self) -> str:
        return ",".join(pass_text(p) for p in self.passes)


# -- pass options ---------------------------------------------------------------


class OptionSyntaxError(ValueError):
    """A pass list or option list that does not parse, or an option a pass
    does not take; the message names the bad item."""


@dataclass
class Option:
    """One `name=value` of an option list, as written (values not yet typed)."""

    name: str
    """Dashed (`out_dir` is read as `out-dir`)."""
    pieces: list[str]
    """The value, then each piece a comma added to it (`grid=2,16`: `2`, `16`)."""
    text: str
    """The option as written, for messages."""


def parse_option_list(text: str) -> list[Option]:
    """The options between a pass's braces, in MLIR's syntax.

    - Options are `name=value`, separated by spaces (as mlir-opt and xdsl-opt
      write them) or commas: `{out-dir=out slices=2}`, `{out-dir=out,slices=2}`.
    - A value in double quotes may hold anything (spaces, commas, `=`,
      braces); the quotes are removed, and `\\"` and `\\\\` inside are `"` and
      `\\`. A value in braces (`{a b}`) is the text between them. Otherwise a
      value runs to the next space or comma, so a path needs no quotes
      (`out-dir=/tmp/b`) unless it has a space or a comma.
    - A comma followed by a piece without `=` continues the value before it:
      `grid=2,16` is the list 2,16 (`a b` with a space is an error). Only a
      list option takes such a value; for any other it is an error that
      names the piece (quote a value that holds a comma).
    - `_` and `-` are the same in a name; a name given twice is an error.
    """
    options: list[Option] = []
    i, n = 0, len(text)
    while True:
        after_comma = False
        while i < n and (text[i].isspace() or text[i] == ","):
            after_comma |= text[i] == ","
            i += 1
        if i >= n:
            break
        start = i
        value, eq, i = _read_piece(text, i)
        raw = text[start:i]
        if eq is None:
            if after_comma and options:
                options[-1].pieces.append(value)
                options[-1].text += "," + raw
                continue
            raise OptionSyntaxError(f"expected key=value options, got '{raw}'")
        key = value[:eq]
        if not re.fullmatch(r"[A-Za-z_][\w-]*", key):
            raise OptionSyntaxError(f"expected key=value options, got '{raw}' (not an option name: '{key}')")
        name = key.replace("_", "-")
        if any(o.name == name for o in options):
            raise OptionSyntaxError(f"option '{name}' is given twice")
        options.append(Option(name, [value[eq + 1 :]], raw))
    return options


def _read_piece(text: str, i: int) -> tuple[str, int | None, int]:
    """The piece at `i` up to a space or comma outside quotes and braces:
    (its text with quotes and outer braces removed, the offset of its
    first `=` before any quoted part or None, the offset after it)."""
    out: list[str] = []
    length = 0
    eq: int | None = None
    literal = False  # a quoted or braced part seen: no `=` after it makes a key
    n = len(text)
    while i < n and not (text[i].isspace() or text[i] == ","):
        c = text[i]
        if c == '"':
            part, i = _read_quoted(text, i)
            literal = True
        elif c == "{":
            end = _matching_brace(text, i)
            part, i = text[i + 1 : end], end + 1
            literal = True
        elif c == "}":
            raise OptionSyntaxError(f"unexpected '}}' in '{text[: i + 1]}'")
        else:
            if c == "=" and eq is None and not literal:
                eq = length
            part, i = c, i + 1
        out.append(part)
        length += len(part)
    return "".join(out), eq, i


def _read_quoted(text: str, i: int) -> tuple[str, int]:
    """The string literal starting at `text[i] == '"'` and the offset after it."""
    out: list[str] = []
    j = i + 1
    while j < len(text):
        c = text[j]
        if c == '"':
            return "".join(out), j + 1
        if c == "\\" and j + 1 < len(text) and text[j + 1] in '"\\':
            out.append(text[j + 1])
            j += 2
            continue
        out.append(c)
        j += 1
    raise OptionSyntaxError(f"unterminated quote at column {i + 1}: {text[i:]}")


def _matching_brace(text: str, i: int) -> int:
    """The offset of the `}` that closes the `{` at `text[i]` (quotes and
    nested braces skipped)."""
    depth = 0
    j = i
    while j < len(text):
        c = text[j]
        if c == '"':
            _, j = _read_quoted(text, j)
            continue
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                return j
        j += 1
    raise OptionSyntaxError(f"unterminated '{{' at column {i + 1} (no matching '}}')")


def _split_pass_list(spec: str) -> list[tuple[str, str | None]]:
    """`a,b{k=v},c` -> [(name, text between the braces or None)], commas
    inside braces and quotes kept."""
    items: list[tuple[str, str | None]] = []
    i, n = 0, len(spec)
    while True:
        while i < n and spec[i].isspace():
            i += 1
        m = re.compile(r"[A-Za-z_][\w.-]*").match(spec, i)
        if m is None:
            got = f"'{spec[i]}'" if i < n else "the end"
            raise OptionSyntaxError(f"expected a pass name at column {i + 1}, got {got}")
        name, i = m.group(), m.end()
        while i < n and spec[i].isspace():
            i += 1
        text = None
        if i < n and spec[i] == "{":
            end = _matching_brace(spec, i)
            text, i = spec[i + 1 : end], end + 1
            while i < n and spec[i].isspace():
                i += 1
        items.append((name, text))
        if i >= n:
            return items
        if spec[i] == "(":
            raise OptionSyntaxError(
                f"nested pass pipelines ('{name}(...)') are not supported at column {i + 1}; give a flat pass list"
            )
        if spec[i] != ",":
            raise OptionSyntaxError(f"expected ',' or '{{' after '{name}' at column {i + 1}, got '{spec[i]}'")
        i += 1


def build_pass(name: str, options: Sequence[Option], *, name_the_pass: bool = False) -> ModulePass:
    """The registered pass `name` with `options` converted to the types of its
    fields (int, bool, float, string, comma-separated lists, one of a set).
    Errors are `OptionSyntaxError`s naming the option (and, with
    `name_the_pass`, the pass)."""
    from spyre_mlir.passes import get_all_passes, pass_options, type_name

    cls = get_all_passes()[name]()
    declared = {o.name: o for o in pass_options(cls)}
    of = f" of pass '{name}'" if name_the_pass else ""
    kwargs = {}
    for option in options:
        decl = declared.get(option.name)
        if decl is None:
            takes = ", ".join(declared) or "none"
            raise OptionSyntaxError(f"unknown option '{option.name}' (options of '{name}': {takes})")
        try:
            kwargs[decl.field] = _convert(decl.hint, option.pieces)
        except _Extra as extra:
            raise OptionSyntaxError(
                f"expected key=value options, got '{extra.args[0]}' (option '{option.name}'{of} takes one "
                f"{type_name(decl.hint)}; quote a value that holds a comma)"
            ) from None
        except ValueError:
            raise OptionSyntaxError(
                f"option '{option.name}'{of} expects {_article(type_name(decl.hint))}, got '{','.join(option.pieces)}'"
            ) from None
    missing = [o.name for o in declared.values() if o.required and o.field not in kwargs]
    if missing:
        raise OptionSyntaxError(f"missing option '{missing[0]}'{of} ({type_name(declared[missing[0]].hint)})")
    try:
        return cls(**kwargs)
    except Exception as exc:  # noqa: BLE001 - a pass's own check of its options
        raise OptionSyntaxError(f"pass '{name}': {_first_line(exc)}") from None


class _Extra(ValueError):
    """A comma-continued piece given to an option that takes one value."""


def _convert(hint, pieces: list[str]):
    import types
    import typing

    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin in (typing.Union, types.UnionType):
        extra = None
        for alt in (a for a in args if a is not type(None)):
            try:
                return _convert(alt, pieces)
            except _Extra as exc:
                extra = extra or exc
            except ValueError:
                pass
        raise extra or ValueError(pieces)
    if origin in (tuple, list):
        elem = args[0] if args else str
        items = [item for piece in pieces for item in piece.split(",")]
        if items == [""]:
            return ()
        return tuple(_convert(elem, [item.strip()]) for item in items)
    if len(pieces) > 1:
        raise _Extra(pieces[1])
    value = pieces[0]
    if origin is typing.Literal:
        if value in args:
            return value
        raise ValueError(value)
    if hint is bool:
        if value.lower() in ("true", "1"):
            return True
        if value.lower() in ("false", "0"):
            return False
        raise ValueError(value)
    if hint is int:
        if re.fullmatch(r"[+-]?\d+", value):
            return int(value)
        raise ValueError(value)
    if hint is float:
        return float(value)
    if hint is str:
        return value
    raise ValueError(f"unsupported option type {hint}")


def _article(name: str) -> str:
    if "|" in name or "," in name:
        return f"one of {name}" if "," not in name else name
    return ("an " if name[0] in "aeiou" else "a ") + name


def pass_text(p: ModulePass) -> str:
    """`p` as written in a pass list, with the options that differ from
    their defaults (read back by `PassManager.parse`)."""
    from spyre_mlir.passes import format_value, pass_options

    given = [
        f"{o.name}={format_value(getattr(p, o.field))}"
        for o in pass_options(type(p))
        if o.required or getattr(p, o.field) != o.default
    ]
    return p.name + ("{" + " ".join(given) + "}" if given else "")


def pipeline_options(name: str) -> list[tuple[str, list[tuple[str, object]]]]:
    """The options of pipeline `name`: (option, [(pass, PassOption)]) in order."""
    from spyre_mlir.passes import pass_options

    seen: dict[str, list[tuple[str, object]]] = {}
    for pass_name in PIPELINES[name][0].split(","):
        for o in pass_options(pass_name):
            seen.setdefault(o.name, []).append((pass_name, o))
    return list(seen.items())


def _invalid_output(p: ModulePass, exc: DiagnosticError) -> DiagnosticError:
    """A verifier failure after pass `p` (the input verified): a bug in `p`."""
    diagnostic = exc.diagnostic
    if diagnostic.message.startswith(INTERNAL_ERROR):  # a verifier crashed: already a bug report
        diagnostic.message = f"{diagnostic.message} (after pass '{p.name}')"
    else:
        diagnostic.message = (
            f"{INTERNAL_ERROR}: pass '{p.name}' produced invalid IR: {diagnostic.message} "
            "(a bug in spyre-mlir; please report it)"
        )
    return exc


def _first_line(exc: BaseException) -> str:
    """The gist of an xDSL error: its last line (xDSL puts the source and a
    caret before it), with the column of a pass-pipeline syntax error."""
    text = str(exc).strip()
    if not text:
        return type(exc).__name__
    gist = text.splitlines()[-1].strip()
    where = re.search(r"^pass-pipeline:\d+:(\d+)$", text, re.MULTILINE)
    return f"{gist} at column {where.group(1)}" if where else gist


def _unknown_pass(name: str) -> str:
    from xdsl.transforms import get_all_passes as xdsl_passes

    if name in xdsl_passes():
        return (
            f"pass '{name}' is not available: xDSL has it, but spyre-mlir does not admit it "
            "(see `spyre-opt --list-passes` and UPSTREAM_PASSES in spyre_mlir.passes)"
        )
    return f"unknown pass '{name}' (see `spyre-opt --list-passes`)"


def _pass_failure(p: ModulePass, module: ModuleOp, exc: Exception) -> DiagnosticError:
    from xdsl.utils.exceptions import DiagnosticException, PassFailedException

    if isinstance(exc, PassFailedException | DiagnosticException):
        return error(module, f"pass '{p.name}' failed: {_first_line(exc)}")
    return error(module, f"internal error in pass '{p.name}': {type(exc).__name__}: {_first_line(exc)}")


def pipeline_names() -> Sequence[str]:
    return sorted(PIPELINES)

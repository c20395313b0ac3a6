"""Named pipelines and the pass manager behind `spyre-opt` and the Python API.

    pm = spyre_mlir.PassManager.parse("cse,canonicalize")
    pm = spyre_mlir.PassManager.from_pipeline("default")
    pm.run(module)            # verifies after every pass; raises DiagnosticError

The pipeline table below is the only place pipelines are defined.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from spyre_mlir.diagnostics import Diagnostic, DiagnosticError, error

PIPELINES: dict[str, tuple[str, str]] = {
    # name: (pass list, what it is for)
    "default": (
        "ktdp-normalize-memory-space,spyre-fold-reshapes,cse,canonicalize",
        "clean up a KTIR kernel: one memory-space spelling, no no-op reshape pairs, CSE, canonicalize",
    ),
    "ktir-to-schedule": (
        "spyre-raise-counted-loops,spyre-physicalize-layouts,spyre-fold-reshapes,cse,canonicalize,ktdp-hbm-roundtrip,"
        "ktdp-extract-compute-groups,ktdf-build-pipelines",
        "lower a kernel to the schedule IR: counted while loops raised, physical layouts, HBM round trips between computes, one "
        "outlined function per compute group, load/compute/store ktdf pipelines",
    ),
    "ktir-to-bundle": (
        "spyre-raise-counted-loops,spyre-physicalize-layouts,spyre-fold-reshapes,cse,canonicalize,"
        "ktdp-extract-compute-groups,spyre-coarse-tile,spyre-distribute-work,spyre-plan-scratchpad,spyre-emit-bundle",
        "lower a kernel to the runtime's bundle: compute groups tiled into counted loops whose tiles fit "
        "LX, the split across cores recorded, intermediates placed in LX, DIR/bundle.mlir and DIR/sdsc_N.json "
        "written (options: out-dir=DIR, slices=N, lx-bytes=N, cores=N, kernel=NAME, auto-tile=true with engine=, jobs=, "
        "max-evaluations=, search-report=)",
    ),
    "ktir-to-spatial": (
        "spyre-raise-counted-loops,spyre-physicalize-layouts,spyre-fold-reshapes,cse,canonicalize,"
        "spatial-tile,spatial-place,spatial-fuse-readers,spatial-size-buffers,spatial-synthesize-handshakes,"
        "spatial-verify",
        "lower a kernel to a verified spatial program: one site per grid block with load, compute and store "
        "engines, blocks placed on cores, tiles several cores read multicast, LX buffers sized, semaphore "
        "handshakes, the choreography simulated (options: scalars=\"NAME=V,...\", cores=N, multicast=false, "
        "depth=N, lx-bytes=N)",
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
    """An ordered list of module passes, run with verification after each."""

    passes: list[ModulePass]
    verify_each: bool = True
    after_pass: list[AfterPassHook] = field(default_factory=list)
    ctx: Context | None = None

    @classmethod
    def parse(cls, spec: str, **kwargs) -> PassManager:
        """Build from a pass list: `"cse,spyre-fold-reshapes{opt=1}"`."""
        from xdsl.utils.arg_spec import parse_pipeline

        from spyre_mlir.passes import get_all_passes

        available = get_all_passes()
        try:
            specs = list(parse_pipeline(spec))
        except BaseException as exc:  # xDSL raises ArgSpecParseError (a BaseException)
            if isinstance(exc, KeyboardInterrupt | SystemExit):
                raise
            raise DiagnosticError(Diagnostic("error", f"invalid pass pipeline '{spec}': {_first_line(exc)}")) from None
        passes: list[ModulePass] = []
        for s in specs:
            if s.name not in available:
                raise DiagnosticError(Diagnostic("error", _unknown_pass(s.name)))
            try:
                passes.append(available[s.name]().from_pass_spec(s))
            except Exception as exc:  # noqa: BLE001 - bad option names/values
                raise DiagnosticError(
                    Diagnostic("error", f"invalid options for pass '{s.name}': {_first_line(exc)}")
                ) from None
        return cls(passes, **kwargs)

    @classmethod
    def from_pipeline(cls, name: str, **kwargs) -> PassManager:
        """Build a named pipeline from the table `PIPELINES`: `NAME` or
        `NAME{key=value,...}`, each option given to the passes of the
        pipeline that take it (a path needs no quotes: `out-dir=/tmp/b`)."""
        match = re.fullmatch(r"\s*([\w-]+)\s*(?:\{(.*)\})?\s*", name, re.S)
        base = match.group(1) if match else name
        if match is None or base not in PIPELINES:
            raise DiagnosticError(
                Diagnostic("error", f"unknown pipeline '{name}'; available: {', '.join(sorted(PIPELINES))}")
            )
        spec = PIPELINES[base][0]
        if match.group(2) is not None:
            spec = _with_options(base, spec, _pipeline_options(name, match.group(2)))
        return cls.parse(spec, **kwargs)

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

        ctx = self.ctx or make_context()
        for p in self.passes:
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
                except DiagnosticError as exc:
                    exc.diagnostic.message = f"{exc.diagnostic.message} (after pass '{p.name}')"
                    raise
            for hook in self.after_pass:
                hook(p, module, elapsed)
        return module

    def __str__(self) -> str:
        return ",".join(str(p.pipeline_pass_spec()) for p in self.passes)


def _pipeline_options(name: str, text: str) -> dict[str, str]:
    """`key=value,...` of a named pipeline; values may be quoted."""
    options: dict[str, str] = {}
    for item in re.findall(r'(?:[^,"]|"[^"]*")+', text):
        key, eq, value = item.partition("=")
        key, value = key.strip(), value.strip()
        if not eq or not re.fullmatch(r"[\w-]+", key) or not value:
            raise DiagnosticError(Diagnostic("error", f"invalid pipeline '{name}': expected key=value options, got '{item.strip()}'"))
        if len(value) >= 2 and value[0] == value[-1] == '"':
            value = value[1:-1]
        options[key.replace("_", "-")] = value
    return options


def _with_options(base: str, spec: str, options: dict[str, str]) -> str:
    """The pass list `spec` with each option added to every pass that declares it."""
    import dataclasses

    from xdsl.utils.arg_spec import parse_pipeline

    from spyre_mlir.passes import get_all_passes

    available = get_all_passes()
    used: set[str] = set()
    parts = []
    for s in parse_pipeline(spec):
        fields = {f.name.replace("_", "-") for f in dataclasses.fields(available[s.name]())}
        mine = {k: v for k, v in options.items() if k in fields}
        used |= mine.keys()
        text = str(s)  # the pass as written in the table, with its own options
        given = " ".join(f"{k}={_option_value(v)}" for k, v in mine.items())
        if given:
            text = text[:-1] + " " + given + "}" if text.endswith("}") else text + "{" + given + "}"
        parts.append(text)
    unused = sorted(set(options) - used)
    if unused:
        raise DiagnosticError(Diagnostic("error", f"pipeline '{base}' has no pass taking option '{unused[0]}'"))
    return ",".join(parts)


def _option_value(value: str) -> str:
    if re.fullmatch(r"-?\d+|true|false", value):
        return value
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


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

"""Interpreter plug-ins: what an IR adds to the interpreter besides its ops' handlers.

An `ops_<dialect>.py` registers the handlers of its ops with `core.handles`.
When its IR also has functions to run other than the module's `func.func`s,
ops that run another function, state kept for as long as an `Interpreter`
lives, ops that need every core of the grid together, checks no op verifier
makes, or figures for the run's report, it registers one `Plugin` saying so:

    register(Plugin("sdscbundle", session=BundleFiles.of, callee=..., lx=..., report=ReportSection(...)))

`api.py` and `runtime.py` ask the registry (`PLUGINS`, `plugins()`) and name
no IR. A plug-in is registered when its module is imported, as the handlers
are (every `ops_*.py` is, by `spyre_mlir.interpreter`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Attribute, Operation

from spyre_mlir import ir

if TYPE_CHECKING:
    from spyre_mlir.interpreter.api import Interpreter, RunReport
    from spyre_mlir.interpreter.liveness import LxEstimate
    from spyre_mlir.interpreter.runtime import Runtime

REPORT_PLACES = ("memory", "traffic")
"""Where a plug-in's lines go in `RunReport.render()`: after the LX lines, or after the HBM and inter-tile lines."""


def _no_lines(report: RunReport) -> list[str]:
    return []


@dataclass(frozen=True)
class ReportSection:
    """What a plug-in adds to a run's `RunReport`.

    `fields(runtime)` gives the report's fields of this plug-in, every one
    of them on every run (a run that did not use the IR gets the empty
    value), read as attributes of the report (`report.relayout_bytes`);
    `lines(report)` gives its lines of `RunReport.render()`, at `place`."""

    fields: Callable[[Runtime], dict[str, Any]]
    lines: Callable[[RunReport], list[str]] = _no_lines
    place: str = "traffic"

    def __post_init__(self) -> None:
        if self.place not in REPORT_PLACES:
            raise ValueError(f"a report section's place is {' or '.join(map(repr, REPORT_PLACES))}, not {self.place!r}")


@dataclass(frozen=True)
class LxUse:
    """LX that a function the run executed uses beyond the kernel's own estimate."""

    estimate: LxEstimate
    """Its live tensors per core."""
    declared: int = 0
    """The LX peak per core it declares (0: none)."""
    declared_by: str = ""
    """What declares it, for messages ("an executed SDSC file")."""


@dataclass(frozen=True)
class Plugin:
    """What the IR `name` adds to the interpreter (every hook optional).

    - `entry_points(module, taken)`: functions to run by name besides the
      module's `func.func`s (a function of the module wins: `taken` holds
      the names in use), detached from the module.
    - `session(interpreter)`: state kept as long as the `Interpreter` lives
      (its `module`, `options`, `sources` and `path`); decoding finds it in
      `Program.sessions[name]`.
    - `callee(state, op, functions)`: the name of the function `op` runs
      (its session state, and the interpreter's functions by name), else
      None. The function may come from the session (`session_functions`).
      A located error when it cannot be found.
    - `session_functions(state)`: the functions the session has loaded,
      by their name in the program.
    - `collective`: ops that need every core of the grid running together
      (a kernel holding one, or calling a function that does, runs batched).
    - `hbm_transfers`: ops whose memory cycles the cost model charges for
      moving data between HBM and the cores (`RunReport.hbm_traffic_bytes`).
    - `address_parameters`: parameter types that take an array placed in
      HBM and receive its *byte* address (a bundle's `!sdscbundle.input_arg`),
      or a byte address as an int; with `InterpreterOptions.host_layout` the
      array is a host (logical) one, placed in the default device layout.
    - `finish(runtime)`: the run is over (its results read): release what
      the run's state holds.
    - `verify(module)`: the checks of its IR that no op verifier makes (a
      located error), run on every module the interpreter verifies.
    - `lx(runtime)`: the LX of each function the run executed beyond the
      kernel's own calls (`LxUse`); it counts toward the run's LX peak.
    - `report`: the report's fields and lines of this IR.
    """

    name: str
    entry_points: Callable[[ModuleOp, Mapping[str, func.FuncOp]], Mapping[str, func.FuncOp]] | None = None
    session: Callable[[Interpreter], Any] | None = None
    callee: Callable[[Any, Operation, Mapping[str, func.FuncOp]], str | None] | None = None
    session_functions: Callable[[Any], Mapping[str, func.FuncOp]] | None = None
    collective: tuple[type[Operation], ...] = ()
    hbm_transfers: tuple[type[Operation], ...] = ()
    address_parameters: tuple[type[Attribute], ...] = ()
    finish: Callable[[Runtime], None] | None = None
    verify: Callable[[ModuleOp], None] | None = None
    lx: Callable[[Runtime], Iterable[LxUse]] | None = None
    report: ReportSection | None = None


PLUGINS: dict[str, Plugin] = {}
"""Registered plug-ins by name, in registration order."""


def register(plugin: Plugin) -> Plugin:
    """Register `plugin`; a second plug-in of the same name is an error."""
    if plugin.name in PLUGINS:
        raise ValueError(f"two interpreter plug-ins are named '{plugin.name}'")
    PLUGINS[plugin.name] = plugin
    return plugin


def plugins() -> tuple[Plugin, ...]:
    """The registered plug-ins, in registration order."""
    return tuple(PLUGINS.values())


def verify(module: ModuleOp) -> None:
    """Verify `module` as the interpreter does before running it: its ops, then every plug-in's checks."""
    ir.verify(module)
    for p in PLUGINS.values():
        if p.verify is not None:
            p.verify(module)


def collective_ops() -> tuple[type[Operation], ...]:
    """The ops of every plug-in that need the grid's cores together."""
    return tuple(op for p in PLUGINS.values() for op in p.collective)


def finish(runtime: Runtime) -> None:
    for plugin in PLUGINS.values():
        if plugin.finish is not None:
            plugin.finish(runtime)


def address_parameter_types() -> tuple[type[Attribute], ...]:
    return tuple(t for p in PLUGINS.values() for t in p.address_parameters)


def hbm_transfer_ops() -> tuple[str, ...]:
    """The names of the ops of every plug-in that move data between HBM and the cores."""
    return tuple(op.name for p in PLUGINS.values() for op in p.hbm_transfers)


def report_fields(runtime: Runtime) -> dict[str, Any]:
    """Every plug-in's report fields of the run `runtime`; a field two plug-ins give is an error naming both."""
    fields: dict[str, Any] = {}
    owner: dict[str, str] = {}
    for p in PLUGINS.values():
        if p.report is None:
            continue
        for key, value in p.report.fields(runtime).items():
            if key in owner:
                raise ValueError(f"the report field '{key}' is given by the plug-ins '{owner[key]}' and '{p.name}'")
            owner[key] = p.name
            fields[key] = value
    return fields


def report_lines(report: RunReport, place: str) -> list[str]:
    """The lines every plug-in adds at `place` of `report.render()`."""
    return [
        line
        for p in PLUGINS.values()
        if p.report is not None and p.report.place == place
        for line in p.report.lines(report)
    ]

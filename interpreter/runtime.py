"""Options and per-run state: memory, grid, limits, statistics."""

from __future__ import annotations

import math
import os
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TypeVar

import numpy as np

from spyre_mlir.analysis.grid import DEFAULT_GRID_ORDER as _DEFAULT_GRID_ORDER
from spyre_mlir.analysis.grid import GRID_ORDERS as _GRID_ORDERS
from spyre_mlir.analysis.layout import Layout
from spyre_mlir.interpreter.cost import resolve as resolve_cost_model
from spyre_mlir.interpreter.errors import InterpreterError
from spyre_mlir.interpreter.memory import AddressSpace, MemoryBudget, format_bytes
from spyre_mlir.interpreter.views import Access
from spyre_mlir.target import SPYRE

T = TypeVar("T")

DEFAULT_LX_BYTES = SPYRE.lx_bytes
"""LX scratchpad per core of the default target (a module's `spyre.target` may say otherwise)."""

ARG_BASE = 1 << 28
"""Lowest byte address at which array arguments are placed (256 MiB): the
addresses below are left to kernels that use constant addresses."""

MAX_CALL_DEPTH = 1000
"""Nested `func.call`s allowed at run time; deeper recursion is a located error."""

CORE_BYTES = 256
"""Bookkeeping per core of the grid (its coordinates and lane entries), for the memory limit."""

MEMORY_LIMIT_CAP = 8 << 30
"""The default memory limit: this many bytes, or half of the machine's memory when that is less."""

# Values of `InterpreterOptions.grid_order` (`spyre-run --grid-order`), the
# default first: the one definition of linear tile ids, `spyre_mlir.analysis.grid`.
GRID_ORDERS = _GRID_ORDERS
DEFAULT_GRID_ORDER = _DEFAULT_GRID_ORDER

EXECUTION_MODES = ("auto", "batched", "per-core")
"""Values of `InterpreterOptions.execution` (`spyre-run --execution`), the default first."""


def _physical_memory() -> int | None:
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, OSError, ValueError):
        return None


def default_memory_limit() -> int:
    """MEMORY_LIMIT_CAP (8 GiB), or half of the machine's memory when that is less."""
    limit = MEMORY_LIMIT_CAP
    physical = _physical_memory()
    if physical:
        limit = min(limit, physical // 2)
    return limit


DEFAULT_MEMORY_LIMIT = default_memory_limit()


def _is_int(x) -> bool:
    import numpy as np

    return isinstance(x, int | np.integer) and not isinstance(x, bool | np.bool_)


def _is_number(x) -> bool:
    import numpy as np

    return isinstance(x, int | float | np.integer | np.floating) and not isinstance(x, bool | np.bool_)


def normalize_grid(grid, what: str = "grid") -> tuple[int, ...] | None:
    """None, an int, or a sequence of ints -> a tuple of positive ints (TypeError/ValueError otherwise)."""
    if grid is None:
        return None
    if _is_int(grid):
        dims = (int(grid),)
    elif isinstance(grid, tuple | list):
        if not all(_is_int(d) for d in grid):
            raise TypeError(f"{what} must be an int or a tuple of ints, e.g. (32,) or (2, 16), not {grid!r}")
        dims = tuple(int(d) for d in grid)
    else:
        raise TypeError(
            f"{what} must be an int or a tuple of ints, e.g. (32,) or (2, 16), not {type(grid).__name__} {grid!r}"
        )
    if not dims or any(d <= 0 for d in dims):
        raise ValueError(f"{what} must have at least one dim, all positive, not {grid!r}")
    return dims


@dataclass(frozen=True)
class HostTensor:
    """A host (logical) array the run placed in HBM at `byte_address`, as `layout` lays out
    the logical shape `padded` (its `shape`, the last dim zero-padded to whole sticks)."""

    name: str
    byte_address: int
    shape: tuple[int, ...]
    dtype: np.dtype
    layout: Layout
    padded: tuple[int, ...]


@dataclass
class InterpreterOptions:
    """How the reference interpreter runs a kernel (see docs/interpreter.md).

    - `grid_order`: linearization of grid coordinates into linear tile ids
      (KTDP-SEMANTICS §1, `spyre_mlir.analysis.grid`): "col-major" (grid dim 0
      varies fastest, ktir-cpu's `x + nx*(y + ny*z)`, default) or
      "row-major" (the last dim fastest, dataflow-scheduler). It decides
      the tiles named by inter-tile sets, `ct_id`, a single-result
      `ktdp.get_compute_tile_id` on a multi-dimensional grid, the order of
      cores in per-core mode, and so which core wins when two write the
      same element.
    - `lx_limit`: bytes of LX scratchpad per core. Default None: the
      `lx_bytes` of the module's target (`spyre_mlir.target.target_of`).
    - `check_lx`: make a peak LX use above `lx_limit` an error.
    - `check_uninitialized`: reading HBM/LX bytes nobody wrote is an error
      (otherwise they read as zero).
    - `mask_out_of_bounds`: an access outside its view loads 0 and the store
      skips it (KTDP-SEMANTICS §4 Rec; Triton tensor-descriptor semantics,
      the tail tile of `vector_add_dynamic`), default True; False is the
      strict mode (`spyre-run --strict-bounds`): such an access is a
      located error.
    - `execution`: "auto" (batched when possible), "batched" or "per-core".
    - `verify`: verify the module before running it.
    - `grid`: run on this grid (an int or a tuple of ints) instead of the
      kernel's `grid` attribute (a kernel without one runs on a single core).
    - `timeout`: seconds a run may take (None: no limit). A loop running when
      it expires stops with a located error naming it.
    - `memory_limit`: bytes the interpreter may allocate for one run (memory
      of HBM and LX it creates, tensors, the grid's bookkeeping); an
      allocation that would exceed it is refused before it is made.
      Default: 8 GiB, or half of the machine's memory when that is less.
    - `cost_model`: estimate the kernel's time on Spyre while it runs
      (docs/cost-model.md): True for the default hardware, or a
      `spyre_mlir.interpreter.cost.HardwareConfig`; the estimate is
      `result.report.estimate`. Default None: off, no overhead.
    - `host_layout`: an array passed for a pointer parameter that has a host
      layout (`spyre_mlir.dialects.spyre.host_layouts`: its `spyre.host_layout` arg
      attribute, or the marker of a view directly on it) is the host
      (logical) array: the interpreter places its device form (`to_device`)
      and returns the argument in logical form (`from_device`). Default
      False: arrays are raw device memory, placed and returned as given.
    - `bundle_dir`: the directory in which a bundle finds its SDSC files
      (docs/bundle.md):
      a str or `os.PathLike`. Default None: the directory of the bundle file
      when the module was read from a path, else the current directory.
      When given, it wins over the bundle file's directory.

    Every option is type-checked on construction (`TypeError`) and checked
    for range (`ValueError`).
    """

    grid_order: str = DEFAULT_GRID_ORDER
    lx_limit: int | None = None
    check_lx: bool = False
    check_uninitialized: bool = True
    mask_out_of_bounds: bool = True
    execution: str = EXECUTION_MODES[0]
    verify: bool = True
    grid: tuple[int, ...] | None = None
    timeout: float | None = None
    memory_limit: int = DEFAULT_MEMORY_LIMIT
    host_layout: bool = False
    cost_model: object = None  # None, a bool, or a cost.HardwareConfig
    bundle_dir: str | os.PathLike[str] | None = None

    def __post_init__(self) -> None:
        self.validate()

    def validate(self) -> None:
        """Check (and normalize `grid` to a tuple): TypeError for a wrong type, ValueError for a bad value."""
        for name in ("check_lx", "check_uninitialized", "mask_out_of_bounds", "verify", "host_layout"):
            value = getattr(self, name)
            if not isinstance(value, bool):
                raise TypeError(f"InterpreterOptions.{name} must be a bool, not {type(value).__name__} {value!r}")
        for name, allowed in (("grid_order", GRID_ORDERS), ("execution", EXECUTION_MODES)):
            value = getattr(self, name)
            if not isinstance(value, str):
                raise TypeError(f"InterpreterOptions.{name} must be a str, not {type(value).__name__} {value!r}")
            if value not in allowed:
                raise ValueError(
                    f"InterpreterOptions.{name} must be {' or '.join(repr(a) for a in allowed)}, not {value!r}"
                )
        for name in ("lx_limit", "memory_limit"):
            value = getattr(self, name)
            if name == "lx_limit" and value is None:
                continue
            if not _is_int(value):
                raise TypeError(
                    f"InterpreterOptions.{name} must be an int (bytes), not {type(value).__name__} {value!r}"
                )
            if value <= 0:
                raise ValueError(f"InterpreterOptions.{name} must be positive, not {value}")
        if self.timeout is not None:
            if not _is_number(self.timeout):
                raise TypeError(
                    f"InterpreterOptions.timeout must be a number of seconds or None, not "
                    f"{type(self.timeout).__name__} {self.timeout!r}"
                )
            if not self.timeout > 0 or math.isnan(self.timeout):
                raise ValueError(f"InterpreterOptions.timeout must be positive, not {self.timeout!r}")
        self.grid = normalize_grid(self.grid, "InterpreterOptions.grid")
        resolve_cost_model(self.cost_model)  # TypeError for anything but None, a bool or a HardwareConfig
        if self.bundle_dir is not None:
            if not isinstance(self.bundle_dir, str | os.PathLike):
                raise TypeError(
                    f"InterpreterOptions.bundle_dir must be a str, an os.PathLike or None, not "
                    f"{type(self.bundle_dir).__name__} {self.bundle_dir!r}"
                )
            path = os.fspath(self.bundle_dir)
            if not isinstance(path, str):
                raise TypeError(f"InterpreterOptions.bundle_dir must name a directory as text, not {path!r}")
            if not path or "\0" in path:
                raise ValueError(f"InterpreterOptions.bundle_dir must be a directory name, not {path!r}")


@dataclass
class StageRecord:
    """One execution of a pipeline stage (the schedule IR's, interpreter/ops_ktdf.py)
    by the cores `lanes`: the pipeline it belongs to, which instance of that
    pipeline (one per execution of the pipeline op), and the stage's
    position in it. The cost model fills `cycles` (per lane) when it runs."""

    pipeline: object  # the pipeline op
    instance: int
    index: int
    stage: object  # the stage op
    lanes: np.ndarray  # linear core ids that ran it
    cycles: np.ndarray | None = None


@dataclass
class RunStats:
    """What happened during a run (printed by `spyre-run --print-summary`)."""

    mode: str = ""
    divergent_regions: int = 0
    fallback_reason: str | None = None
    counters: dict[str, int] = field(default_factory=dict)
    comm: dict[str, np.ndarray] | None = None  # inter-tile bytes per core id: "sent", "received", "ring"
    stages: list[StageRecord] = field(default_factory=list)  # pipeline stage executions, in order

    def communication(self, ncores: int) -> dict[str, np.ndarray]:
        """The per-core inter-tile byte counters, created on first use (docs/inter-tile.md §4.8)."""
        if self.comm is None:
            self.comm = {k: np.zeros(ncores, np.int64) for k in ("sent", "received", "ring")}
        return self.comm


class Runtime:
    """Memory, limits and options of one run, shared by every decoded function."""

    def __init__(
        self,
        options: InterpreterOptions,
        grid: tuple[int, ...],
        cores: tuple[tuple[int, ...], ...],
        lx_limit: int = DEFAULT_LX_BYTES,
    ):
        self.options = options
        self.grid = grid
        self.cores = cores  # grid coordinates by linear core id
        self.lx_limit = lx_limit  # bytes of LX per core
        self.budget = MemoryBudget(options.memory_limit)
        self.hbm = AddressSpace("HBM", check_uninitialized=options.check_uninitialized, budget=self.budget)
        self.lx: dict[int, AddressSpace] = {}
        self.access = Access(
            self.hbm, self.lx_space, options.mask_out_of_bounds, options.check_uninitialized, options.memory_limit
        )
        self.array_args: dict[str, tuple[int, object]] = {}  # name -> (element address, dtype)
        self.host_tensors: list[HostTensor] = []  # host arrays placed in their default device layout (launch)
        self.internal_args: set[str] = set()  # arguments the runtime allocated itself (compiler scratch)
        self.stats = RunStats()
        self.call_depth = 0
        self.timeout = options.timeout
        self.deadline: float | None = None  # time.monotonic() at which the run times out
        self.stage_hooks: list = []  # objects with enter(record) / exit(record), e.g. the cost model
        self.cost = None  # the cost.CostCounter of the run, when the cost model is on
        self._plugin_state: dict[str, object] = {}

    def state(self, plugin: str, make: Callable[[], T]) -> T:
        """The run's state of interpreter plug-in `plugin` (plugins.py), `make()` on first use."""
        found = self._plugin_state.get(plugin)
        if found is None:
            found = self._plugin_state[plugin] = make()
        return found  # pyright: ignore[reportReturnType]

    def find_state(self, plugin: str) -> object | None:
        """The run's state of plug-in `plugin`, None if it made none (it ran no op of its IR)."""
        return self._plugin_state.get(plugin)

    @contextmanager
    def stage(self, pipeline, instance: int, index: int, stage, lanes) -> Iterator[StageRecord]:
        """Bracket one execution of a schedule-IR stage: recorded in `stats.stages`,
        so that what runs inside it (its ops' cycles, when the cost model
        counts) is attributed to it."""
        record = StageRecord(pipeline, instance, index, stage, np.atleast_1d(np.asarray(lanes)))
        self.stats.stages.append(record)
        for hook in self.stage_hooks:
            hook.enter(record)
        try:
            yield record
        finally:
            for hook in reversed(self.stage_hooks):
                hook.exit(record)

    def start_clock(self) -> None:
        if self.timeout is not None:
            self.deadline = time.monotonic() + self.timeout

    def timed_out(self, where: str = "in this loop") -> InterpreterError:
        return InterpreterError(f"execution exceeded the {self.timeout:g} s timeout {where}")

    def lx_space(self, core: int) -> AddressSpace:
        space = self.lx.get(core)
        if space is None:
            if not 0 <= core < len(self.cores):
                raise InterpreterError(f"ct_id {core} names no core of the {len(self.cores)}-core grid")
            space = self.lx[core] = AddressSpace(
                f"LX of core {core}", self.lx_limit, self.options.check_uninitialized, self.budget
            )
        return space

    def explicit_lx_peak(self) -> int:
        """Highest LX byte touched by explicit `ct_local` views on any core."""
        return max((s.high_water for s in self.lx.values()), default=0)

    def check_allocation(self, nbytes: int, what: str) -> None:
        """Refuse one allocation (a tensor, an index table) above the memory limit."""
        limit = self.budget.limit
        if nbytes > limit:
            raise InterpreterError(
                f"{what} would allocate {format_bytes(nbytes)}, over the {format_bytes(limit)} memory limit"
            )

"""Options and per-run state: memory, grid, statistics."""

from __future__ import annotations

from dataclasses import dataclass, field

from spyre_mlir.interpreter.memory import AddressSpace
from spyre_mlir.interpreter.views import Access

DEFAULT_LX_BYTES = 2 * 1024 * 1024
"""LX scratchpad per core (DESIGN.md, "Hardware model")."""

ARG_BASE = 1 << 28
"""Lowest byte address at which array arguments are placed (256 MiB): the
addresses below are left to kernels that use constant addresses."""


@dataclass
class InterpreterOptions:
    """How the reference interpreter runs a kernel (see docs/interpreter.md).

    - `grid_order`: linearization of grid coordinates into core ids
      (KTDP-SEMANTICS §1): "row-major" (last dim fastest, default) or
      "col-major" (first dim fastest, like ktir-cpu). It decides `ct_id`,
      the order of cores in per-core mode, and so which core wins when two
      write the same element.
    - `lx_limit`: bytes of LX scratchpad per core.
    - `check_lx`: make a peak LX use above `lx_limit` an error.
    - `check_uninitialized`: reading HBM/LX bytes nobody wrote is an error
      (otherwise they read as zero).
    - `mask_out_of_bounds`: an access outside its view loads 0 and the store
      skips it (KTDP-SEMANTICS §4 Rec); default: a located error.
    - `execution`: "auto" (batched when possible), "batched" or "per-core".
    - `verify`: verify the module before running it.
    - `grid`: run on this grid instead of the kernel's `grid` attribute (a
      kernel without one runs on a single core).
    """

    grid_order: str = "row-major"
    lx_limit: int = DEFAULT_LX_BYTES
    check_lx: bool = False
    check_uninitialized: bool = True
    mask_out_of_bounds: bool = False
    execution: str = "auto"
    verify: bool = True
    grid: tuple[int, ...] | None = None

    def validate(self) -> None:
        if self.grid_order not in ("row-major", "col-major"):
            raise ValueError(f"grid_order must be 'row-major' or 'col-major', not {self.grid_order!r}")
        if self.execution not in ("auto", "batched", "per-core"):
            raise ValueError(f"execution must be 'auto', 'batched' or 'per-core', not {self.execution!r}")
        if self.grid is not None and (not self.grid or any(int(d) <= 0 for d in self.grid)):
            raise ValueError(f"grid must be a non-empty sequence of positive ints, not {self.grid!r}")
        if self.lx_limit <= 0:
            raise ValueError(f"lx_limit must be positive, not {self.lx_limit}")


@dataclass
class RunStats:
    """What happened during a run (printed by `spyre-run --print-summary`)."""

    mode: str = ""
    divergent_regions: int = 0
    fallback_reason: str | None = None
    counters: dict[str, int] = field(default_factory=dict)


class Runtime:
    """Memory and options of one run, shared by every decoded function."""

    def __init__(self, options: InterpreterOptions, grid: tuple[int, ...], cores: tuple[tuple[int, ...], ...]):
        self.options = options
        self.grid = grid
        self.cores = cores  # grid coordinates by linear core id
        self.hbm = AddressSpace("HBM", check_uninitialized=options.check_uninitialized)
        self.lx: dict[int, AddressSpace] = {}
        self.access = Access(self.hbm, self.lx_space, options.mask_out_of_bounds, options.check_uninitialized)
        self.array_args: dict[str, tuple[int, object]] = {}  # name -> (element address, dtype)
        self.stats = RunStats()

    def lx_space(self, core: int) -> AddressSpace:
        space = self.lx.get(core)
        if space is None:
            if not 0 <= core < len(self.cores):
                from spyre_mlir.interpreter.errors import InterpreterError

                raise InterpreterError(f"ct_id {core} names no core of the {len(self.cores)}-core grid")
            space = self.lx[core] = AddressSpace(
                f"LX of core {core}", self.options.lx_limit, self.options.check_uninitialized
            )
        return space

    def explicit_lx_peak(self) -> int:
        """Highest LX byte touched by explicit `ct_local` views on any core."""
        return max((s.high_water for s in self.lx.values()), default=0)

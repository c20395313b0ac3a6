"""The cost model of the reference interpreter (docs/cost-model.md), in three modules:

- `cost_model.py`: the hardware it assumes (`HardwareConfig`, from the target
  model), the per-op cost rules (`OpCosts`) and the pipelined schedule of a
  core's stages (`simulate_core`, on `analysis/engines.py`);
- `cost_instrumentation.py`: the counters a run updates as the interpreter
  executes (`CostModel`, `CostCounter`);
- `cost_report.py`: the estimate of a run as a table, JSON and a Chrome trace
  (`CostEstimate`).

This module re-exports the names its callers import from it (`interpreter/api.py`,
`interpreter/runtime.py`, `interpreter/__init__.py`, `passes/bundle/tiling_search.py`,
`tools/spyre_run.py`, `benchmarks/bundle_bench.py`, test/unit/test_cost_model.py).
"""

from spyre_mlir.interpreter.cost_instrumentation import CostCounter, CostModel
from spyre_mlir.interpreter.cost_model import (
    CASTS,
    FLOAT_ELEMENTWISE,
    FREE,
    FREE_DIALECTS,
    INT_ELEMENTWISE,
    TRANSCENDENTAL,
    HardwareConfig,
    OpCosts,
    StageRun,
    fifo_depth_of,
    pipelined_per_core,
    resolve,
    simulate_core,
    simulate_records,
    stick_bytes,
)
from spyre_mlir.interpreter.cost_report import CostEstimate

__all__ = [
    "CASTS",
    "FLOAT_ELEMENTWISE",
    "FREE",
    "FREE_DIALECTS",
    "INT_ELEMENTWISE",
    "TRANSCENDENTAL",
    "CostCounter",
    "CostEstimate",
    "CostModel",
    "HardwareConfig",
    "OpCosts",
    "StageRun",
    "fifo_depth_of",
    "pipelined_per_core",
    "resolve",
    "simulate_core",
    "simulate_records",
    "stick_bytes",
]

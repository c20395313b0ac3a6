"""xDSL plugin entry point: a stock `xdsl-opt` sees our dialects and passes.

Registered in pyproject.toml under `[project.entry-points."xdsl.universe"]`.
"""

from xdsl.universe import Universe

from spyre_mlir.ir import SPYRE_DIALECTS
from spyre_mlir.passes import SPYRE_PASSES

SPYRE_UNIVERSE = Universe(all_dialects=dict(SPYRE_DIALECTS), all_passes=dict(SPYRE_PASSES))

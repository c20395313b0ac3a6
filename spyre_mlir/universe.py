"""xDSL plugin entry point: a stock `xdsl-opt` reads what `spyre-opt` reads.

Registered in pyproject.toml under `[project.entry-points."xdsl.universe"]`.
It exports our dialects and passes. The upstream dialects cannot be exported
again under their names (xDSL refuses a clash), so loading the plugin swaps
our op subclasses (`spyre_mlir.ir.UPSTREAM_EXTENSIONS`: MLIR syntax and
verifiers xDSL lacks, MLIR ops it lacks) into xDSL's own dialect objects.
"""

from xdsl.dialects import get_all_dialects
from xdsl.universe import Universe

from spyre_mlir.ir import SPYRE_DIALECTS, UPSTREAM_EXTENSIONS, with_upstream_extensions
from spyre_mlir.passes import SPYRE_PASSES, get_all_passes


def _extend_upstream_dialects() -> None:
    upstream = get_all_dialects()
    for name in UPSTREAM_EXTENSIONS:
        dialect = upstream[name]()  # xDSL's dialect object, shared by every context
        extended = with_upstream_extensions(name, upstream[name])()
        dialect._operations[:] = list(extended.operations)  # pyright: ignore[reportPrivateUsage]


_extend_upstream_dialects()

SPYRE_UNIVERSE = Universe(all_dialects=dict(SPYRE_DIALECTS), all_passes={name: load for name, load in get_all_passes().items() if name in SPYRE_PASSES})

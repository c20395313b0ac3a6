"""ktdp-check-inter-tile: the legality rules of inter-tile communication.

The cross-op rules of `ktdp.inter_tile_produce` and its delivery op
(`ktdp.inter_tile_reduce` / `ktdp.inter_tile_consume`) that no op verifier can
see alone (docs/inter-tile.md §3; upstream `--ktir-check-legality`). The rules
are the analysis `spyre_mlir.analysis.inter_tile` (which lists them); the pass
asks it for every inter-tile op of the module, tile ids bounded by each
function's `grid` attribute. It changes no IR: it raises a located error at
the first violation, naming the offending set or tiles. Tile ids are linear
tile ids (`spyre_mlir.analysis.grid`): on a grid of several dims, which tiles
a set names depends on the grid order (dim 0 fastest by default).

Before (rejected, R14: a reduce to a strict subset of several tiles):

    %f = ktdp.inter_tile_produce producer_tiles_per_group = affine_set<(d0)[s0] : (d0 >= 0, -d0 + 3 >= 0)>
        -> <(tensor<64xf16>), groups = affine_set<(d0) : (d0 == 0)>> { ... }
    %r = ktdp.inter_tile_reduce(%f) consumer_tiles_per_group = affine_set<(d0)[s0] : (d0 >= 0, -d0 + 1 >= 0)>,
        identity(%id : tensor<64xf16>) : <...> -> tensor<64xf16> { ... }

After: no IR change; the error, at the reduce:

    error: consumer_tiles_per_group for group 0 is a strict subset of
    producer_tiles_per_group with more than one tile (reduce-to-subset is
    unsupported; only all-reduce and reduce-to-one are supported)

A legal kernel is printed unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from spyre_mlir.analysis.inter_tile import check_inter_tile


@dataclass(frozen=True)
class KtdpCheckInterTilePass(ModulePass):
    """Check the legality rules of inter-tile produce/reduce/consume (see module docstring)."""

    name = "ktdp-check-inter-tile"
    changes_ir: ClassVar[bool] = False

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        check_inter_tile(op)

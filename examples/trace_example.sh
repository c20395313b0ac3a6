#!/bin/sh
# The cost model's timeline as a Chrome trace (docs/cost-model.md, "The trace").
#
#   sh examples/trace_example.sh [OUT_DIR]        (default: ./trace-out)
#
# Runs the bundled row softmax (256x128 f16 on 8 cores) in the interpreter
# with the cost model on, prints the estimate and writes:
#
#   OUT_DIR/softmax_rows.trace.json     the modeled timeline, one process per
#                                       core, one event per run of an op
#   OUT_DIR/softmax_rows.estimate.json  the figures (sequential_cycles, per
#                                       core and component, bottleneck, ...)
#
# To look at a trace: open https://ui.perfetto.dev, "Open trace file", and
# pick the .trace.json (chrome://tracing opens it too). Times are
# microseconds of modeled time at the configured clock (1 GHz: 1 us = 1000
# cycles). A kernel with schedule IR (ktdf.pipeline / ktdf.stage) gets the
# pipelined timeline instead: one thread per engine (load / compute / store),
# the stages of successive pipeline instances overlapping.
#
# Change the modeled hardware with --hw, e.g. the older figures of ktir-cpu's
# docs/latency.md:  --hw hbm_bandwidth_tb_s=1.0 --hw hbm_sharing_cores=32
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=${1:-trace-out}
mkdir -p "$OUT"
SPYRE_RUN=${SPYRE_RUN:-spyre-run}
if ! command -v "$SPYRE_RUN" >/dev/null 2>&1; then
    SPYRE_RUN="$HERE/../.venv/bin/spyre-run"   # the checkout's venv (README, Quick start)
fi
"$SPYRE_RUN" "$HERE/softmax_rows.mlir" \
    --arg out=zeros:256x128xf16 --arg in=random:256x128xf16:7 \
    --estimate \
    --estimate-json "$OUT/softmax_rows.estimate.json" \
    --trace "$OUT/softmax_rows.trace.json"
echo
echo "wrote $OUT/softmax_rows.trace.json: open it in https://ui.perfetto.dev"

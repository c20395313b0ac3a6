"""spyre ops: layout markers and relayouts (docs/interpreter.md, "Layouts").

`spyre.tensor_layout %view {...}` is a statement about memory: the marked
view's elements sit at the addresses of the physical tensor of its layout,
stored contiguously from the view's base. The `ktdp.construct_memory_view`
handler reads the marker while decoding (views.Placement); the marker
itself does nothing at run time.

`spyre.relayout` converts a tensor from one layout of its logical value to
another; the bytes it reads and writes are counted per core
(`RunReport.relayout_bytes`, this module's plug-in).
"""

from __future__ import annotations

import math

import numpy as np
from xdsl.dialects.builtin import TensorType
from xdsl.ir import Operation

from spyre_mlir.analysis.layout import LayoutError
from spyre_mlir.dialects.ktdp import ConstructMemoryViewOp
from spyre_mlir.dialects.spyre import RelayoutOp, TensorLayoutOp, logical_shape
from spyre_mlir.interpreter.core import FunctionCompiler, Step, handles
from spyre_mlir.interpreter.errors import InterpreterError
from spyre_mlir.interpreter.plugins import Plugin, ReportSection, register
from spyre_mlir.target import target_of


@handles(TensorLayoutOp)
def _tensor_layout(fc: FunctionCompiler, op: Operation) -> Step | None:
    assert isinstance(op, TensorLayoutOp)
    owner = op.view.owner
    if not isinstance(owner, ConstructMemoryViewOp):
        what = f"a result of '{owner.name}'" if isinstance(owner, Operation) else "a block argument"
        raise InterpreterError(
            f"a layout marker must mark the result of a 'ktdp.construct_memory_view' (the view whose elements "
            f"it places), not {what}"
        )
    return None  # the view's handler placed its elements


@handles(RelayoutOp)
def _relayout(fc: FunctionCompiler, op: Operation) -> Step:
    assert isinstance(op, RelayoutOp)
    try:
        source, target = op.layouts()
    except LayoutError as exc:
        raise InterpreterError(str(exc)) from None
    fc.format(op.result)  # a located error for an element type the interpreter does not hold
    in_type, out_type = op.input.type, op.result.type
    assert isinstance(in_type, TensorType) and isinstance(out_type, TensorType)
    declared = tuple(out_type.get_shape())
    x, r = fc.slot(op.input), fc.slot(op.result)
    lead = 1 if fc.is_varying(op.input) else 0
    out_lead = 1 if fc.is_varying(op.result) else 0
    program = fc.program
    ncores = len(program.cores)
    element_bytes = target_of(op).element_bytes(out_type.get_element_type())  # in device memory
    plans: dict[tuple[int, ...], tuple[tuple[int, ...], tuple[int, ...]]] = {}

    def plan(physical: tuple[int, ...]) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """(logical shape, result shape) of an input of physical shape `physical`."""
        found = plans.get(physical)
        if found is None:
            logical = logical_shape(physical, source)
            try:
                if source.physical_shape(logical) != physical:
                    raise LayoutError(f"it is not the 'from' layout {source} of any logical shape")
                result = target.physical_shape(logical)
            except LayoutError as exc:
                raise InterpreterError(f"cannot relayout a {'x'.join(map(str, physical))} tensor: {exc}") from None
            if any(d >= 0 and d != g for d, g in zip(declared, result)):
                raise InterpreterError(
                    f"the relayout of a {'x'.join(map(str, physical))} tensor has shape "
                    f"{'x'.join(map(str, result))}, not that of its result type {out_type}"
                )
            found = plans[physical] = (logical, result)
        return found

    def step(frame):
        value = frame[x]
        physical = tuple(value.shape[lead:])
        logical, _ = plan(physical)
        logical_value = source.to_logical(value, logical, lead)
        y = np.ascontiguousarray(target.to_physical(logical_value, lead))
        if out_lead and not lead:  # a uniform input whose result is marked varying
            y = np.broadcast_to(y, (frame[0].count, *y.shape))
        frame[r] = y
        moved = 2 * math.prod(physical) * element_bytes  # read the input, write the result
        counter = program.runtime.state(PLUGIN, lambda: np.zeros(ncores, np.int64))
        counter[frame[0].linear] += moved

    return step


# -- the report: relayout bytes per core -----------------------------------------------------------

PLUGIN = "spyre"


def _report_fields(runtime) -> dict[str, object]:
    counter = runtime.find_state(PLUGIN)
    return {"relayout_bytes": counter.tolist() if counter is not None else []}


def _report_lines(report) -> list[str]:
    moved = report.relayout_bytes
    return [f"relayout bytes per core: max {max(moved)} (total {sum(moved)})"] if moved else []


register(Plugin(PLUGIN, report=ReportSection(_report_fields, _report_lines, place="traffic")))

"""Seeded arguments for a kernel, derived from its signature and memory views.

    args = sample_arguments(func_op, {"n_rows": 64}, seed=0)
    spyre_mlir.interpret(module, "softmax_kernel", **args)

A pointer parameter (an `index` that is the base of `ktdp.construct_memory_view`
ops with static sizes and strides) gets seeded data covering every element its
views reach: the view's shape when there is one row-major view, else a flat
array as long as the farthest view reaches. A tensor parameter of static shape
gets seeded data of that shape. Anything else (a block size, a row count, a
pointer offset by arithmetic) cannot be derived and must be given: a
`MissingArgument` names it. Floats are standard normal; integers are zeros,
which are valid in index views.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import IndexType, TensorType

from spyre_mlir.dialects.ktdp import DYNAMIC_INDEX, ConstructMemoryViewOp
from spyre_mlir.interpreter.dtypes import ElementFormat, element_format, float32_to_bf16_bits


class MissingArgument(ValueError):
    """A parameter whose value cannot be derived from the kernel."""

    def __init__(self, name: str, why: str):
        super().__init__(f"parameter '{name}': {why}; give its value")
        self.name = name


def sample_arguments(func_op: func.FuncOp, given: Mapping[str, object] | None = None, seed: int = 0) -> dict:
    """`given`, plus derived seeded values for every other parameter (see module docstring)."""
    args = dict(given or {})
    rng = np.random.default_rng(seed)
    for i, param in enumerate(func_op.body.blocks[0].args):
        name = param.name_hint or f"arg{i}"
        if name in args:
            continue
        if isinstance(param.type, TensorType):
            shape = param.type.get_shape()
            if any(d < 0 for d in shape):
                raise MissingArgument(name, f"a tensor of dynamic shape {param.type}")
            args[name] = _data(rng, shape, element_format(param.type.get_element_type()))
        elif isinstance(param.type, IndexType):
            args[name] = _pointer_data(name, param, rng)
        else:
            raise MissingArgument(name, f"a scalar of type {param.type}")
    return args


def _pointer_data(name: str, param, rng: np.random.Generator) -> np.ndarray:
    uses = list(param.uses)
    views = [use.operation for use in uses if isinstance(use.operation, ConstructMemoryViewOp)]
    if not views:
        raise MissingArgument(name, "a scalar index")
    if len(views) != len(uses):
        raise MissingArgument(name, "an index used both as the base of memory views and otherwise")
    dtypes, reach, shapes = set(), 0, []
    for view in views:
        if view.offset is not param:
            raise MissingArgument(name, "a memory view offset computed from it")
        sizes, strides = view.static_sizes.get_values(), view.static_strides.get_values()
        if DYNAMIC_INDEX in sizes or DYNAMIC_INDEX in strides:
            raise MissingArgument(name, "a memory view of dynamic sizes or strides")
        dtypes.add(element_format(view.result.type.get_element_type()))
        if 0 in sizes:
            continue
        reach = max(reach, 1 + sum((n - 1) * s for n, s in zip(sizes, strides)))
        shapes.append((tuple(sizes), tuple(strides)))
    if len(dtypes) != 1:
        raise MissingArgument(name, f"memory views of different element types ({', '.join(f.name for f in dtypes)})")
    (fmt,) = dtypes
    if len(shapes) == 1 and shapes[0][1] == _row_major(shapes[0][0]):
        return _data(rng, shapes[0][0], fmt)
    return _data(rng, (reach,), fmt)


def _row_major(shape: tuple[int, ...]) -> tuple[int, ...]:
    strides, step = [], 1
    for n in reversed(shape):
        strides.append(step)
        step *= n
    return tuple(reversed(strides))


def _data(rng: np.random.Generator, shape, fmt: ElementFormat) -> np.ndarray:
    if fmt.round is not None:  # bf16, stored as its bit patterns
        return float32_to_bf16_bits(rng.standard_normal(shape, dtype=np.float32))
    if fmt.is_float:
        return rng.standard_normal(shape).astype(fmt.storage)
    return np.zeros(shape, fmt.storage)

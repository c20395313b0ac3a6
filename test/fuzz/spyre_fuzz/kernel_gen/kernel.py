"""A generated kernel (its text, parameters, inputs and NumPy oracle) and the
MLIR spellings the generator shares."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

NP = {"f16": np.float16, "f32": np.float32}
NEG_INF = {"f16": "0xFC00", "f32": "0xFF800000"}
CONSTS = (0.5, 0.25, 1.5, -0.75, 2.0, 0.125, -1.25)
GRIDS = (None, (2,), (4,), (2, 2), (2, 4))
STICK = 64
PAD = 16  # extra elements per row of a "pad" view


def stick_layout2(stick: int) -> str:
    return f"phys_src = array<i64: 1, 0, 1>, phys_op = array<i64: 1, 0, 2>, phys_arg = array<i64: {stick}, 0, {stick}>"


def stick_layout1(stick: int) -> str:
    return f"phys_src = array<i64: 0, 0>, phys_op = array<i64: 1, 2>, phys_arg = array<i64: {stick}, {stick}>"


ID2 = "affine_map<(d0, d1) -> (d0, d1)>"
ID1 = "affine_map<(d0) -> (d0)>"


def box2(r: int, c: int) -> str:
    return f"affine_set<(d0, d1) : (d0 >= 0, -d0 + {r - 1} >= 0, d1 >= 0, -d1 + {c - 1} >= 0)>"


def box1(n: int) -> str:
    return f"affine_set<(d0) : (d0 >= 0, -d0 + {n - 1} >= 0)>"


def float_lit(x: float) -> str:
    return repr(float(x))


@dataclass
class Param:
    name: str
    kind: str  # "ptr" (index base of an array), "index", "f32"
    shape: tuple[int, ...] = ()
    role: str = "in"  # "in" / "out" for pointers
    layout: bool = False
    value: object = None  # scalars
    view: str = "row"  # 2-D pointers: "row" (row-major), "col" (strides [1, R]), "pad" (row stride C+P), "step2" (strides [2C, 2])

    def mem_shape(self) -> tuple[int, ...]:
        """The shape of the argument array (row-major) that holds the view."""
        if len(self.shape) != 2 or self.view == "row":
            return self.shape
        r, c = self.shape
        return {"col": (c, r), "pad": (r, c + PAD), "step2": (r, 2 * c)}[self.view]

    def strides(self) -> list[int]:
        r, c = self.shape
        return {"row": [c, 1], "col": [1, r], "pad": [c + PAD, 1], "step2": [2 * c, 2]}[self.view]

    def to_mem(self, logical: np.ndarray) -> np.ndarray:
        if len(self.shape) != 2 or self.view == "row":
            return np.array(logical, copy=True)
        if self.view == "col":
            return np.ascontiguousarray(logical.T)
        mem = np.zeros(self.mem_shape(), logical.dtype)
        if self.view == "pad":
            mem[:, :self.shape[1]] = logical
        else:
            mem[:, ::2] = logical
        return mem

    def from_mem(self, mem: np.ndarray) -> np.ndarray:
        mem = np.asarray(mem).reshape(self.mem_shape())
        if len(self.shape) != 2 or self.view == "row":
            return mem
        if self.view == "col":
            return mem.T
        if self.view == "pad":
            return mem[:, :self.shape[1]]
        return mem[:, ::2]


@dataclass
class Kernel:
    seed: int
    index: int
    name: str
    text: str
    params: list[Param]
    dtype: str
    grid: tuple[int, ...] | None
    features: list[str]
    oracle: dict[str, np.ndarray]  # logical outputs
    inputs: dict[str, np.ndarray]  # logical inputs
    sums: bool  # a floating-point sum or contraction (accumulation order may differ after physicalization)
    markers: bool
    stick: int = STICK  # elements per stick of the marked views
    masked: bool = False  # tail tiles run past a view's end: run with mask_out_of_bounds (loads 0, stores dropped)

    def options(self, **kw):
        """Interpreter options of this kernel: strict bounds, or the default masking for tail-tile kernels."""
        from spyre_mlir.interpreter import InterpreterOptions

        return InterpreterOptions(mask_out_of_bounds=self.masked, **kw)

    def args(self) -> dict:
        """The interpreter arguments: device arrays (layout applied) and scalars, fresh copies."""
        from spyre_mlir.analysis.layout import Layout, to_device

        out = {}
        for p in self.params:
            if p.kind == "ptr":
                arr = self.inputs[p.name] if p.role == "in" else np.zeros(p.shape, NP[self.dtype])
                if p.layout:
                    arr = to_device(arr, Layout.stick_last(len(p.shape), self.stick))
                out[p.name] = p.to_mem(arr)
            else:
                out[p.name] = p.value
        return out

    def logical(self, name: str, arr) -> np.ndarray:
        from spyre_mlir.analysis.layout import Layout, from_device

        p = next(q for q in self.params if q.name == name)
        arr = np.asarray(arr)
        if p.layout:
            return from_device(arr, p.shape, Layout.stick_last(len(p.shape), self.stick))
        return p.from_mem(arr)

    def index_scalars(self) -> dict[str, int]:
        return {p.name: p.value for p in self.params if p.kind == "index"}

    def scalars(self) -> dict[str, object]:
        """Every scalar argument (index and f32: a spatial program is specialized for them)."""
        return {p.name: p.value for p in self.params if p.kind != "ptr"}

    def outputs(self) -> list[str]:
        return [p.name for p in self.params if p.kind == "ptr" and p.role == "out"]

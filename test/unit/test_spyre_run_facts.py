"""spyre-run takes its facts from the interpreter: the element types its
`random:`/`zeros:` values spell are exactly the ones the interpreter holds,
in the same NumPy storage; its defaults and choices are the library's."""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.dialects.builtin import (
    BFloat16Type,
    Float16Type,
    Float32Type,
    Float64Type,
    Float80Type,
    Float128Type,
    FloatTF32Type,
    IndexType,
    IntegerType,
    Signedness,
)

from spyre_mlir.interpreter import InterpreterOptions
from spyre_mlir.interpreter.dtypes import element_format, element_type_names
from spyre_mlir.interpreter.errors import InterpreterError
from spyre_mlir.interpreter.runtime import DEFAULT_LX_BYTES, EXECUTION_MODES, GRID_ORDERS, MEMORY_LIMIT_CAP
from spyre_mlir.tools import spyre_run

CANDIDATES = [
    Float16Type(),
    BFloat16Type(),
    Float32Type(),
    Float64Type(),
    Float80Type(),
    Float128Type(),
    FloatTF32Type(),
    IndexType(),
    *(IntegerType(width, signedness) for width in range(1, 130) for signedness in Signedness),
]


def interpreter_holds(ty) -> bool:
    try:
        element_format(ty)
    except InterpreterError:
        return False
    return True


def run_array(spelling: str, kind: str) -> np.ndarray | None:
    try:
        return spyre_run.parse_value("x", f"{kind}:3x2x{spelling}", 0)
    except spyre_run.UsageError as exc:
        assert "unknown element type" in str(exc) or "bad shape" in str(exc)
        return None


def test_spyre_run_spells_exactly_the_interpreters_element_types():
    wrong = []
    for ty in CANDIDATES:
        spelling = str(ty)
        for kind in ("zeros", "random"):
            array = run_array(spelling, kind)
            if (array is not None) != interpreter_holds(ty):
                wrong.append((kind, spelling, "taken" if array is not None else "refused"))
            elif array is not None:
                fmt = element_format(ty)
                assert array.shape == (3, 2) and array.dtype == fmt.storage, spelling
                if fmt.unsigned:
                    assert (array < 100).all()
                elif fmt.kind in ("int", "index"):
                    assert (array >= -100).all() and (array < 100).all()
    assert wrong == []


def test_the_spellings_spyre_run_lists():
    names = element_type_names()
    # every spelling spyre-run took before still means the same storage
    before = {"f16": np.float16, "f32": np.float32, "f64": np.float64, "bf16": np.uint16, "i1": np.bool_,
              "i8": np.int8, "i16": np.int16, "i32": np.int32, "i64": np.int64, "index": np.int64}
    for name, dtype in before.items():
        assert name in names
        assert spyre_run.parse_value("x", f"zeros:2x{name}", 0).dtype == dtype
    assert sorted(names) == sorted(str(ty) for ty in CANDIDATES if interpreter_holds(ty))
    assert f"DTYPE is one of {', '.join(names[:3])}" in spyre_run.build_parser().format_help()
    with pytest.raises(spyre_run.UsageError, match="unknown element type 'f17' \\(one of f16, f32, f64, bf16, index"):
        spyre_run.parse_value("x", "zeros:2xf17", 0)


def test_spyre_run_defaults_are_the_librarys():
    parser = spyre_run.build_parser()
    args = parser.parse_args(["k.mlir"])
    assert args.grid_order == InterpreterOptions().grid_order and args.execution == InterpreterOptions().execution
    actions = {a.dest: a for a in parser._actions}
    assert tuple(actions["grid_order"].choices) == GRID_ORDERS
    assert tuple(actions["execution"].choices) == EXECUTION_MODES
    help_text = " ".join(parser.format_help().split())
    # --lx-limit defaults to the kernel's target (test_target.py); Spyre's is named.
    assert "(default: the lx_bytes of the kernel's target, 2MiB on Spyre)" in help_text
    assert spyre_run.parse_size("2MiB") == DEFAULT_LX_BYTES
    assert "(default 8GiB," in " ".join(help_text.split()) and spyre_run.parse_size("8GiB") == MEMORY_LIMIT_CAP
    assert spyre_run.parse_grid("2x16") == (2, 16)
    for bad in ("0x4", "2x-1"):
        with pytest.raises(spyre_run.UsageError, match="dims must be positive"):
            spyre_run.parse_grid(bad)

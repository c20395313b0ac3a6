"""launch: run a compiled Spyre kernel directory as torch-spyre's `spyre launch` does, on the CPU.

    import numpy as np, spyre_mlir
    a = np.random.rand(512, 1024).astype(np.float16)
    (out,) = spyre_mlir.launch("build/add", [a, a], [((512, 1024), "float16")])

The directory holds `bundle.mlir` and its SuperDSC files `sdsc_N.json`
(docs/superdsc.md), or a single `sdsc_0.json`, which runs as one
`sdscbundle.sdsc_execute` of it (as their runtime does: the k-th HBM tensor
of the file is argument k, each core's start address its slice's offset in
the tensor). Every argument, inputs then outputs in the order of the bundle
function's parameters, is placed in HBM in torch-spyre's default device
layout (`Layout.stick_last`, the last dim zero-padded to whole sticks),
outputs zero-filled; the bundle runs in the reference interpreter (its
`sdsc_execute` ops through interpreter/superdsc_exec.py) and the outputs
come back as host (logical) arrays. A SuperDSC file that lays an argument
out otherwise is an error, never wrong numbers.

Dtypes: float16, float32 and bfloat16 (`fp16`, `fp32`, `bf16` as `spyre
launch -i 512x1024@fp16` spells them). bf16 tensors are given as float32
arrays (rounded to bf16, ties to even) and come back as float32.
"""

from __future__ import annotations

import dataclasses
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from spyre_mlir import ir
from spyre_mlir.interpreter.api import InterpretResult
from spyre_mlir.interpreter.dtypes import bf16_bits_to_float32, float32_to_bf16_bits, round_to_bf16
from spyre_mlir.interpreter.runtime import InterpreterOptions
from spyre_mlir.interpreter.superdsc_exec import SuperDscRunError, symbol_offsets
from spyre_mlir.superdsc import SuperDscError, read_superdsc

DTYPES = {
    "float16": "float16",
    "fp16": "float16",
    "f16": "float16",
    "float32": "float32",
    "fp32": "float32",
    "f32": "float32",
    "bfloat16": "bfloat16",
    "bf16": "bfloat16",
}
"""Dtype spellings `launch` and `spyre-run --bundle` accept, to their canonical names."""

_STORAGE = {"float16": np.dtype(np.float16), "float32": np.dtype(np.float32), "bfloat16": np.dtype(np.uint16)}


class LaunchError(ValueError):
    """A launch that cannot run as asked (wrong count, shape or dtype of tensors; no bundle)."""


@dataclass(frozen=True)
class TensorSpec:
    """A tensor of the launch: its logical shape and canonical dtype name."""

    shape: tuple[int, ...]
    dtype: str

    def __str__(self) -> str:
        return f"{'x'.join(map(str, self.shape))}@{self.dtype}"

    @property
    def storage(self) -> np.dtype:
        """How HBM holds its elements (bf16: uint16 bit patterns)."""
        return _STORAGE[self.dtype]


def canonical_dtype(dtype) -> str:
    """The canonical name of a dtype spelling or NumPy dtype; LaunchError for others."""
    name = dtype if isinstance(dtype, str) else getattr(np.dtype(dtype), "name", str(dtype))
    canonical = DTYPES.get(str(name).lower())
    if canonical is None:
        raise LaunchError(f"unsupported dtype '{name}' (supported: float16/fp16, float32/fp32, bfloat16/bf16)")
    return canonical


def parse_tensor_spec(text: str) -> TensorSpec:
    """`512x1024@fp16` -> TensorSpec((512, 1024), "float16"), as `spyre launch -i/-o` spells tensors."""
    match = re.fullmatch(r"\s*(\d+(?:x\d+)*)@(\w+)\s*", text)
    if match is None:
        raise LaunchError(f"bad tensor '{text}': expected SHAPE@DTYPE, e.g. 512x1024@fp16")
    shape = tuple(int(d) for d in match.group(1).split("x"))
    if any(d <= 0 for d in shape):
        raise LaunchError(f"bad tensor '{text}': every dim must be positive")
    return TensorSpec(shape, canonical_dtype(match.group(2)))


def to_storage(array: np.ndarray, spec: TensorSpec) -> np.ndarray:
    """A host array of `spec` in its HBM element form (bf16: bit patterns of the float32 values rounded)."""
    if spec.dtype == "bfloat16":
        return float32_to_bf16_bits(round_to_bf16(np.asarray(array, np.float32)))
    return np.asarray(array, spec.storage)


def from_storage(array: np.ndarray, spec: TensorSpec) -> np.ndarray:
    """An HBM element array of `spec` as the host sees it (bf16 as float32)."""
    return bf16_bits_to_float32(array) if spec.dtype == "bfloat16" else np.asarray(array)


def _input_spec(i: int, array) -> TensorSpec:
    if not isinstance(array, np.ndarray):
        raise LaunchError(f"input {i} must be a NumPy array, not {type(array).__name__}")
    if array.dtype == np.float32 or array.dtype.name == "bfloat16":
        dtype = "float32" if array.dtype == np.float32 else "bfloat16"
    else:
        dtype = canonical_dtype(array.dtype)
    return TensorSpec(tuple(int(d) for d in array.shape), dtype)


def _output_spec(i: int, output) -> TensorSpec:
    if isinstance(output, TensorSpec):
        return output
    if isinstance(output, str):
        return parse_tensor_spec(output)
    try:
        shape, dtype = output
        shape = tuple(int(d) for d in shape)
    except (TypeError, ValueError):
        raise LaunchError(f"output {i} must be (shape, dtype) or 'SHAPE@DTYPE', not {output!r}") from None
    if not shape or any(d <= 0 for d in shape):
        raise LaunchError(f"output {i}: every dim of {shape} must be positive")
    return TensorSpec(shape, canonical_dtype(dtype))


def bundle_source(directory: str | os.PathLike[str]) -> Path:
    """The bundle of a kernel directory: DIR/bundle.mlir, else a single DIR/sdsc_0.json."""
    directory = Path(directory)
    if not directory.is_dir():
        raise LaunchError(f"'{directory}' is not a directory (expected a compiled kernel: bundle.mlir, sdsc_N.json)")
    bundle = directory / "bundle.mlir"
    if bundle.is_file():
        return bundle
    single = directory / "sdsc_0.json"
    if single.is_file():
        return single
    raise LaunchError(f"'{directory}' holds neither bundle.mlir nor sdsc_0.json")


def single_file_bundle(path: Path) -> str:
    """The `bundle.mlir` text that runs a lone `sdsc_0.json` as their runtime does: one parameter per
    symbolic HBM tensor, each symbol bound to its base plus the slice offset (`symbol_offsets`)."""
    sdsc = read_superdsc(path)
    tensors = symbol_offsets(sdsc)
    params = ", ".join(f"%arg_{k}_base_addr: !sdscbundle.input_arg<index>" for k in range(len(tensors)))
    lines = [f"func.func @sdsc_bundle({params}) {{"]
    operands, ids = [], []
    for k, symbols in enumerate(tensors):
        lines.append(
            f"  %arg_{k} = sdscbundle.input_arg_extract value from %arg_{k}_base_addr "
            ": !sdscbundle.input_arg<index> -> index"
        )
        for symbol, offset in sorted(symbols.items(), reverse=True):  # -1, -2, ...: core order
            name = f"%arg_{k}"
            if offset:
                name = f"%arg_{k}_core_{offset}"
                lines.append(f"  %arg_{k}_core_offset_{offset} = arith.constant {offset} : index")
                lines.append(f"  {name} = arith.addi %arg_{k}, %arg_{k}_core_offset_{offset} : index")
            operands.append(name)
            ids.append(symbol)
    lines.append(
        f"  sdscbundle.sdsc_execute ({', '.join(operands)}) "
        f'{{sdsc_filename = "{path.name}", symbol_ids = [{", ".join(map(str, ids))}]}}'
    )
    lines += ["  return", "}"]
    return "\n".join(lines) + "\n"


def launch_run(
    directory: str | os.PathLike[str],
    inputs: Sequence[np.ndarray | tuple[np.ndarray, TensorSpec]],
    outputs: Sequence,
    options: InterpreterOptions | None = None,
    sources: dict[str, str] | None = None,
) -> tuple[list[np.ndarray], InterpretResult, dict[str, str]]:
    """`launch`, also giving the interpreter's result (its report) and the sources its diagnostics
    render with (also filled into `sources` when given, for an error's rendering). Raises
    LaunchError or a located DiagnosticError."""
    from spyre_mlir.interpreter.api import Interpreter

    source = bundle_source(directory)
    given = []
    for i, item in enumerate(inputs):
        array, spec = item if isinstance(item, tuple) else (item, _input_spec(i, item))
        given.append((to_storage(array, spec), spec))
    wanted = [_output_spec(i, o) for i, o in enumerate(outputs)]
    options = dataclasses.replace(options or InterpreterOptions(), host_layout=True, bundle_dir=os.fspath(directory))
    if source.name == "bundle.mlir":
        interpreter = Interpreter(source, options)
    else:
        try:
            text = single_file_bundle(source)
        except (SuperDscError, SuperDscRunError) as exc:
            raise LaunchError(str(exc)) from None
        name = f"{source} (run alone)"
        interpreter = Interpreter(ir.parse_module(text, name), options)
        interpreter.sources[name] = text
    try:
        return _run(interpreter, source, given, wanted)
    finally:  # also on an error: its rendering shows the source lines (SDSC texts read in the run too)
        if sources is not None:
            sources.update(interpreter.sources)


def _run(interpreter, source: Path, given, wanted) -> tuple[list[np.ndarray], InterpretResult, dict[str, str]]:
    func_op = interpreter.kernel(None)
    names = [a.name_hint or f"arg{i}" for i, a in enumerate(func_op.body.blocks[0].args)]
    if len(given) + len(wanted) != len(names):
        raise LaunchError(
            f"Number of inputs provided ({len(given) + len(wanted)}) does not match number of inputs expected "
            f"({len(names)}): {source} takes {len(names)} tensors, inputs then outputs"
        )
    args = {name: array for name, (array, _) in zip(names, given)}
    for name, spec in zip(names[len(given) :], wanted):
        args[name] = np.zeros(spec.shape, spec.storage)
    result = interpreter.run(None, args)
    values = [from_storage(result[name], spec) for name, spec in zip(names[len(given) :], wanted)]
    return values, result, interpreter.sources


def launch(
    directory: str | os.PathLike[str],
    inputs: Sequence[np.ndarray],
    outputs: Sequence,
    *,
    options: InterpreterOptions | None = None,
) -> list[np.ndarray]:
    """Run the compiled kernel in `directory` as `spyre launch` does (module docstring): `inputs`
    are host arrays in argument order, `outputs` `(shape, dtype)` pairs (or `"512x1024@fp16"`);
    returns the outputs as host arrays. Raises LaunchError (wrong tensors, no bundle) or a located
    `spyre_mlir.DiagnosticError` (a bad bundle or SuperDSC file, a layout other than the default)."""
    return launch_run(directory, inputs, outputs, options)[0]

"""torch-spyre's compiled kernels run on the CPU: `spyre_mlir.launch` and `spyre-run --bundle` (issue 21).

Every example directory of ../shared/corpus/torch-spyre-bundles named in its
README-upstream.md table runs through both, on seeded random inputs
(positive ones for division), against a NumPy oracle of the table's op;
with ones (the CLI's default) `add` gives 2s. Bad launches are clear errors
with exit code 1.
"""

from __future__ import annotations

import json
import math
import re
import shutil
import subprocess
import sys

import numpy as np
import pytest
from conftest import SHARED

import spyre_mlir
from spyre_mlir.interpreter.launch import LaunchError, parse_tensor_spec

BUNDLES = SHARED / "corpus" / "torch-spyre-bundles"


def _erf(x):
    return np.vectorize(math.erf, otypes=[np.float64])(x)


def _softmax(a):
    e = np.exp(a - a.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def _sigmoid(a):
    return 1 / (1 + np.exp(-a))


ORACLES = {
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "mul": lambda a, b: a * b,
    "div": lambda a, b: a / b,
    "relu": lambda a: np.maximum(a, 0),
    "exp": np.exp,
    "sigmoid": _sigmoid,
    "gelu": lambda a: 0.5 * a * (1 + _erf(a / np.sqrt(2))),
    "fma": lambda a, b, c: a * b + c,
    "swiglu": lambda a, b: a * _sigmoid(a) * b,
    "add_fp32": lambda a, b: a + b,
    "mul_bf16": lambda a, b: a * b,
    "add_3d": lambda a, b: a + b,
    "softmax": _softmax,
    "mean_keepdim": lambda a: a.mean(axis=-1, keepdims=True),
    "mm": lambda a, b: a @ b,
    "bmm": lambda a, b: a @ b,
}
"""The op of each example of README-upstream.md's table, on float64 host values."""


def _examples() -> list[tuple[str, list[str], list[str]]]:
    """(name, input specs, output specs) of each example in the table whose directory is present."""
    readme = BUNDLES / "README-upstream.md"
    if not readme.is_file():
        return []
    found = []
    for line in readme.read_text().splitlines():
        command = re.search(r"`spyre launch ((?:-[io] \S+ )+)build/(\w+)`", line)
        if command is None or not (BUNDLES / command.group(2)).is_dir():
            continue
        flags = re.findall(r"-([io]) (\S+)", command.group(1))
        found.append((command.group(2), [s for f, s in flags if f == "i"], [s for f, s in flags if f == "o"]))
    return found


EXAMPLES = _examples()
needs_corpus = pytest.mark.skipif(not EXAMPLES, reason="../shared/corpus/torch-spyre-bundles not present")


def _params():
    if not EXAMPLES:
        return [
            pytest.param(
                None, None, None, marks=pytest.mark.skip(reason="../shared/corpus/torch-spyre-bundles not present")
            )
        ]
    return [pytest.param(name, i, o, id=name) for name, i, o in EXAMPLES]


def _random_inputs(name: str, specs: list[str], seed: int = 0) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    arrays = []
    for text in specs:
        spec = parse_tensor_spec(text)
        values = rng.standard_normal(spec.shape)
        if name == "div":
            values = rng.uniform(0.5, 2.0, spec.shape)
        arrays.append(values.astype(np.float32 if spec.dtype != "float16" else np.float16))
    return arrays


def _tolerance(name: str, spec) -> dict:
    if spec.dtype == "float32":
        return {"rtol": 1e-5, "atol": 1e-5}
    if spec.dtype == "bfloat16":
        return {"rtol": 2e-2, "atol": 2e-2}
    if name in ("mm", "bmm"):  # sums of 256-1024 fp16 products, rounded once
        return {"rtol": 2e-2, "atol": 5e-2}
    return {"rtol": 1e-2, "atol": 1e-2}


@pytest.mark.parametrize("name,inputs,outputs", _params())
def test_example_launches_to_its_op(name, inputs, outputs):
    arrays = _random_inputs(name, inputs)
    specs = [parse_tensor_spec(o) for o in outputs]
    results = spyre_mlir.launch(BUNDLES / name, arrays, [(s.shape, s.dtype) for s in specs])
    expected = ORACLES[name](*[a.astype(np.float64) for a in arrays])
    assert len(results) == 1
    (result,), (spec,) = results, specs
    assert result.shape == spec.shape
    np.testing.assert_allclose(result.astype(np.float64), expected, **_tolerance(name, spec))


def _spyre_run(*args: str, cwd=None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "spyre_mlir.tools.spyre_run", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=600,
    )


@pytest.mark.parametrize("name,inputs,outputs", _params())
def test_example_runs_with_spyre_run(name, inputs, outputs, tmp_path):
    arrays = _random_inputs(name, inputs, seed=1)
    command = ["--bundle", str(BUNDLES / name)]
    for k, (text, array) in enumerate(zip(inputs, arrays)):
        np.save(tmp_path / f"in{k}.npy", array)
        command += ["-i", text, "--input-npy", str(tmp_path / f"in{k}.npy")]
    for text in outputs:
        command += ["-o", text]
    command += ["--output-npy", str(tmp_path / "out.npy")]
    done = _spyre_run(*command)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("output 0: ")
    result = np.load(tmp_path / "out.npy")
    expected = ORACLES[name](*[a.astype(np.float64) for a in arrays])
    np.testing.assert_allclose(result.astype(np.float64), expected, **_tolerance(name, parse_tensor_spec(outputs[0])))


@needs_corpus
def test_add_of_ones_prints_twos():
    done = _spyre_run(
        "--bundle", str(BUNDLES / "add"), "-i", "512x1024@fp16", "-i", "512x1024@fp16", "-o", "512x1024@fp16"
    )
    assert done.returncode == 0, done.stderr
    assert "output 0: 512x1024@float16: min 2 max 2 mean 2" in done.stdout
    assert "[[2. 2. 2. ... 2. 2. 2.]" in done.stdout


# -- errors --------------------------------------------------------------------


@needs_corpus
def test_wrong_tensor_count_is_their_runtime_message():
    done = _spyre_run("--bundle", str(BUNDLES / "add"), "-i", "512x1024@fp16", "-o", "512x1024@fp16")
    assert done.returncode == 1
    assert "Number of inputs provided (2) does not match number of inputs expected (3)" in done.stderr
    assert "Traceback" not in done.stderr


@needs_corpus
@pytest.mark.parametrize("example", ["add", "softmax"])
def test_wrong_input_shape_is_an_error(example):
    with pytest.raises((LaunchError, spyre_mlir.DiagnosticError), match="default layout|laid out"):
        spyre_mlir.launch(
            BUNDLES / example,
            [np.ones((256, 1024), np.float16)] * (2 if example == "add" else 1),
            [((256, 1024), "float16")],
        )


@needs_corpus
def test_wrong_dtype_is_an_error():
    with pytest.raises((LaunchError, spyre_mlir.DiagnosticError), match="float32|IEEE_FP32|SEN169_FP16|format"):
        spyre_mlir.launch(BUNDLES / "add", [np.ones((512, 1024), np.float32)] * 2, [((512, 1024), "float32")])


def _copy(name: str, tmp_path):
    target = tmp_path / name
    shutil.copytree(BUNDLES / name, target)
    for path in target.iterdir():
        path.chmod(0o644)
    return target


@needs_corpus
def test_malformed_json_is_a_located_error(tmp_path):
    bundle = _copy("softmax", tmp_path)
    (bundle / "sdsc_3.json").write_text('{"3_exp": {')
    done = _spyre_run("--bundle", str(bundle), "-i", "512x1024@fp16", "-o", "512x1024@fp16")
    assert done.returncode == 1
    assert re.search(r"bundle\.mlir:\d+:\d+: error: .*sdsc_3\.json.*JSON", done.stderr), done.stderr
    assert "Traceback" not in done.stderr


@needs_corpus
def test_missing_sdsc_file_is_a_located_error(tmp_path):
    bundle = _copy("softmax", tmp_path)
    (bundle / "sdsc_4.json").unlink()
    done = _spyre_run("--bundle", str(bundle), "-i", "512x1024@fp16", "-o", "512x1024@fp16")
    assert done.returncode == 1
    assert re.search(r"bundle\.mlir:\d+:\d+: error: .*sdsc_4\.json.*(No such file|cannot read)", done.stderr), (
        done.stderr
    )


@needs_corpus
def test_symbol_without_an_address_is_an_error(tmp_path):
    bundle = _copy("mm", tmp_path)
    text = (bundle / "bundle.mlir").read_text()
    (bundle / "bundle.mlir").write_text(text.replace("-44]", "-45]"))  # the last operand now binds -45, not -44
    done = _spyre_run("--bundle", str(bundle), "-i", "512x1024@fp16", "-i", "1024x256@fp16", "-o", "512x256@fp16")
    assert done.returncode == 1
    assert re.search(r"error: .*symbol -44", done.stderr), done.stderr


@needs_corpus
def test_unknown_compute_op_lists_the_supported(tmp_path):
    bundle = _copy("exp", tmp_path)
    data = json.loads((bundle / "sdsc_0.json").read_text())
    data["0_exp"]["dscs_"][0]["exp"]["computeOp_"][0]["opFuncName"] = "frobnicate"
    (bundle / "sdsc_0.json").write_text(json.dumps(data))
    with pytest.raises((LaunchError, spyre_mlir.DiagnosticError), match="frobnicate.*(supported|known)"):
        spyre_mlir.launch(bundle, [np.ones((512, 1024), np.float16)], [((512, 1024), "float16")])


def test_bad_tensor_specs_are_usage_errors(tmp_path):
    with pytest.raises(LaunchError, match="SHAPE@DTYPE"):
        parse_tensor_spec("512x1024")
    with pytest.raises(LaunchError, match="unsupported dtype 'int8'"):
        parse_tensor_spec("4@int8")
    done = _spyre_run("--bundle", str(tmp_path), "-i", "4@fp16", "-o", "4@fp16")
    assert done.returncode == 1
    assert "holds neither bundle.mlir nor sdsc_0.json" in done.stderr


@needs_corpus
def test_cost_of_a_superdsc_bundle_comes_from_the_cost_model():
    from spyre_mlir.interpreter import HardwareConfig, InterpreterOptions
    from spyre_mlir.interpreter.launch import launch_run

    config = HardwareConfig()
    options = InterpreterOptions(cost_model=config)
    _, result, _ = launch_run(BUNDLES / "softmax", [np.ones((512, 1024), np.float16)], ["512x1024@fp16"], options)
    rows = {
        kind: cycles for kind, cycles in zip(result.report.estimate.kinds, result.report.estimate.kind_cycles[:, 0])
    }
    # softmax reads its input from HBM once and writes its output once: 2 x 1 MiB over its 32 cores
    hbm_per_core = 2 * 512 * 1024 * 2 / 32
    assert rows[("superdsc.hbm", "memory")] == pytest.approx(hbm_per_core / config.hbm_bytes_per_cycle_per_core(32))
    # each of its six ops runs once over a core's 16 x 1024 slice; exp at the transcendental rate
    slice_cycles = 16 * 1024 / config.simd_elements_per_cycle
    assert rows[("superdsc.exp", "compute")] == pytest.approx(slice_cycles * config.transcendental_penalty)
    assert rows[("superdsc.sum", "compute")] == pytest.approx(slice_cycles)

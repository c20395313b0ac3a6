"""The random valid-kernel generator (test/fuzz/spyre_fuzz/kernel_gen/): a fixed sample of
kernels runs in the interpreter equal to its NumPy oracle (a mismatch is a
bug of the generator), and kernel N of a seed is the same whatever else is
generated. The back ends are not asserted clean here: the generator's
findings are reported by `python -m spyre_fuzz.kernel_gen`."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from conftest import REPO
from spyre_fuzz.kernel_gen.generator import generate
from spyre_fuzz.kernel_gen.run import run_source

SEED = 7
SAMPLE = range(12)


@pytest.mark.parametrize("index", SAMPLE)
def test_source_matches_oracle(index):
    k = generate(SEED, index)
    raw, err = run_source(k)
    assert err is None, f"{err}\n{k.text}"
    assert raw is not None and set(raw) == set(k.outputs())


def test_sample_varies():
    feats = set()
    for i in range(40):
        feats.update(generate(SEED, i).features)
    for f in ("f16", "f32", "grid=none", "matmul", "scf.for", "markers"):
        assert f in feats, f


NEW_FEATURES = ("linalg.transpose", "linalg.transpose(input)", "tensor.extract", "axpy(alpha)", "scf.if",
                "tail(masked", "view(", "linalg.reduce(sum, dim0)", "linalg.generic+index(gcol)", "stick=32",
                "partial", "multi")


def _sample_features(n=150):
    feats = set()
    for i in range(n):
        feats.update(generate(SEED, i).features)
    return feats


def test_sample_has_the_wider_features():
    feats = _sample_features()
    for f in NEW_FEATURES:
        assert any(f in x for x in feats), f


def _first(pred, n=150):
    for i in range(n):
        k = generate(SEED, i)
        if pred(k):
            return k
    raise AssertionError("no such kernel in the sample")


def test_tail_kernel_is_masked():
    """A tail-tile kernel matches its oracle with the default (masked) options and
    really runs past a view's end (strict bounds refuse it)."""
    import spyre_mlir
    from spyre_mlir.interpreter import InterpreterOptions

    k = _first(lambda k: k.masked and k.params[0].view == "row" and not k.markers)
    raw, err = run_source(k)
    assert err is None, f"{err}\n{k.text}"
    with pytest.raises(Exception):
        spyre_mlir.interpret(k.text, k.name, options=InterpreterOptions(mask_out_of_bounds=False), **k.args())


@pytest.mark.parametrize("feature", ["scf.if", "view(", "stick=32", "linalg.transpose(input)", "linalg.reduce(max, dim0)"])
def test_feature_kernel_matches_oracle(feature):
    k = _first(lambda k: any(feature in f for f in k.features))
    raw, err = run_source(k)
    assert err is None, f"{err}\n{k.text}"


def test_generation_is_deterministic():
    a = generate(SEED, 5)
    generate(SEED, 4)
    b = generate(SEED, 5)
    assert a.text == b.text
    for name in a.inputs:
        assert (a.inputs[name] == b.inputs[name]).all()
    assert (a.oracle["out"] == b.oracle["out"]).all()


def test_show_is_deterministic():
    cmd = [sys.executable, "-m", "spyre_fuzz.kernel_gen", "--seed", str(SEED), "--show", "3"]
    env = {**os.environ, "PYTHONPATH": "test/fuzz"}  # as the README runs it, from the repository root
    first = subprocess.run(cmd, capture_output=True, text=True, check=True, cwd=REPO, env=env).stdout
    second = subprocess.run(cmd, capture_output=True, text=True, check=True, cwd=REPO, env=env).stdout
    assert first == second
    assert "func.func @gen_7_3" in first
    assert first.startswith(generate(SEED, 3).text)

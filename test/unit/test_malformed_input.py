"""Bounded fuzzing of spyre-opt: truncated and byte-mutated kernels.

Every input either parses (exit 0) or gets `FILE:LINE:COL: error: ...` and
exit 1 -- never a Python traceback, never an internal error. Seeds are the
corpus kernels (when ../shared is present) and our own lit inputs; the
random choices use a fixed seed, so a failure reproduces.
"""

from __future__ import annotations

import random
import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO, corpus_files

from spyre_mlir.tools.spyre_opt import main

SEEDS = corpus_files() + sorted((REPO / "test" / "lit" / "dialects").rglob("ops.mlir"))
CASES_PER_SEED = 12
LOCATED_ERROR = re.compile(r"^\S+:\d+:\d+: error: ", re.MULTILINE)
FILLERS = [b"", b"}", b"{", b"%", b"#", b"<", b">", b"(", b"]", b":", b",", b"\"", b"0x", b"-", b"@", b"\xff", b"// -----"]


def mutations(data: bytes, rng: random.Random):
    for _ in range(CASES_PER_SEED // 2):
        yield "truncate", data[: rng.randrange(1, len(data))]
    for _ in range(CASES_PER_SEED // 2):
        pos = rng.randrange(len(data))
        width = rng.randrange(1, 8)
        yield "mutate", data[:pos] + rng.choice(FILLERS) + data[pos + width :]


def cases():
    out = []
    for seed in SEEDS:
        rng = random.Random(f"{seed.name}:20261130")
        for i, (kind, data) in enumerate(mutations(seed.read_bytes(), rng)):
            out.append(pytest.param(data, id=f"{seed.parent.name}-{seed.stem}-{kind}-{i}"))
    return out


@pytest.mark.parametrize("data", cases())
def test_bad_input_gets_a_located_error(data: bytes, tmp_path: Path, capsys):
    f = tmp_path / "input.mlir"
    f.write_bytes(data)
    code = main([str(f)])
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert "internal error" not in err, err
    if code != 0:
        assert code == 1
        assert LOCATED_ERROR.search(err), err


def test_the_installed_command_prints_no_traceback(tmp_path: Path):
    """The same through the real `spyre-opt` entry point, once per seed kind."""
    f = tmp_path / "bad.mlir"
    f.write_text("func.func @f() {\n  %0 = ktdp.load %x : !ktdp.access_tile<4xindex> -> tensor<4xf16\n}\n")
    exe = Path(sys.executable).with_name("spyre-opt")
    proc = subprocess.run([str(exe), str(f)], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1
    assert "Traceback" not in proc.stderr
    assert LOCATED_ERROR.search(proc.stderr), proc.stderr

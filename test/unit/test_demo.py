"""examples/demo.py: the README's main job, and any kernel a new user hands it."""

from __future__ import annotations

import subprocess
import sys

from conftest import REPO, corpus_params

DEMO = REPO / "examples" / "demo.py"
KERNELS = REPO / "test" / "unit" / "kernels"


def demo(*args: str, cwd) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(DEMO), *args], capture_output=True, text=True, cwd=cwd, timeout=300)


def test_bundled_kernel_passes_every_check(tmp_path):
    proc = demo(cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "matches NumPy softmax (f16 tolerance): yes" in proc.stdout
    assert (tmp_path / "out" / "softmax_rows.opt.mlir").exists()


def test_func_selects_the_kernel(tmp_path):
    proc = demo(str(KERNELS / "grid2d.mlir"), "--func", "tile_ids", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "@tile_ids" in proc.stdout and "before == after (bit-exact):         yes" in proc.stdout


def test_many_functions_without_func_is_an_error_not_a_traceback(tmp_path):
    proc = demo(str(KERNELS / "elementwise.mlir"), cwd=tmp_path)
    assert proc.returncode == 1
    assert "Traceback" not in proc.stderr
    assert "cannot choose the kernel" in proc.stderr


def test_missing_scalar_argument_is_named(tmp_path):
    kernel = tmp_path / "k.mlir"
    kernel.write_text("func.func @k(%n: index) {\n  func.return\n}\n")
    proc = demo(str(kernel), cwd=tmp_path)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert "--arg n=VALUE" in proc.stderr
    assert demo(str(kernel), "--arg", "n=3", cwd=tmp_path).returncode == 0


def test_corpus_kernel(tmp_path):
    for param in corpus_params():
        path = param.values[0]
        if path is None or path.name != "vector_add_ktir.mlir":
            continue
        proc = demo(str(path), "--arg", "BLOCK_SIZE=128", cwd=tmp_path)
        assert proc.returncode == 0, proc.stderr

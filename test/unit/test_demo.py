"""examples/demo.py: the README's main job, and any kernel a new user hands it."""

from __future__ import annotations

import subprocess
import sys

from conftest import REPO, corpus_params

DEMO = REPO / "examples" / "demo.py"
KERNELS = REPO / "test" / "unit" / "kernels"


def demo(*args: str, cwd) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(DEMO), *args], capture_output=True, text=True, cwd=cwd, timeout=300)


PIPELINES = ("default", "ktir-to-schedule", "ktir-to-bundle", "ktir-to-spatial")


def table(stdout: str) -> dict[str, list[str]]:
    """The demo's table: pipeline -> its cells."""
    rows = {}
    for line in stdout.splitlines():
        cells = line.split()
        if cells and (cells[0] in PIPELINES or cells[0] == "(source)"):
            rows[cells[0]] = cells[1:]
    return rows


def test_bundled_kernel_runs_every_back_end_equal_to_source_and_numpy(tmp_path):
    proc = demo(cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    rows = table(proc.stdout)
    assert set(rows) == {"(source)", *PIPELINES}
    for name in PIPELINES:
        compile_ms, run_ms, equal, numpy, artifact = rows[name]
        assert (equal, numpy) == ("yes", "yes"), (name, rows[name])
        assert float(compile_ms) >= 0 and float(run_ms) >= 0
        assert (tmp_path / artifact).is_file(), artifact
    assert (tmp_path / "out" / "bundle" / "sdsc_0.json").is_file()
    assert "spatial.program" in (tmp_path / "out" / "ktir-to-spatial.mlir").read_text()
    assert "ktdf.pipeline" in (tmp_path / "out" / "ktir-to-schedule.mlir").read_text()
    assert "[4/4] ktir-to-spatial: compiling" in proc.stderr  # progress


def test_a_wrong_artifact_fails_the_demo(tmp_path, monkeypatch, capsys):
    """The checks can fail: a back end whose output computes something else is a NO and exit 1."""
    sys.path.insert(0, str(DEMO.parent))
    try:
        import demo as demo_module
    finally:
        sys.path.remove(str(DEMO.parent))
    real_run = demo_module.run

    def corrupted(module, func_name, kernel_args, bundle_dir=None):
        result = real_run(module, func_name, kernel_args, bundle_dir)
        if bundle_dir is not None:
            result["out"][0, 0] += 1
        return result

    monkeypatch.setattr(demo_module, "run", corrupted)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "argv", ["demo.py", "--pipelines", "default,ktir-to-bundle"])
    assert demo_module.main() == 1
    rows = table(capsys.readouterr().out)
    assert rows["default"][2:4] == ["yes", "yes"]
    assert rows["ktir-to-bundle"][2] == "NO"


def test_func_selects_the_kernel(tmp_path):
    proc = demo(str(KERNELS / "grid2d.mlir"), "--func", "tile_ids", "--pipelines", "default,ktir-to-schedule", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    rows = table(proc.stdout)
    assert "@tile_ids" in proc.stdout
    assert rows["default"][2] == rows["ktir-to-schedule"][2] == "yes"


def test_a_refusing_pipeline_is_reported_with_its_location(tmp_path):
    proc = demo(str(KERNELS / "grid2d.mlir"), "--func", "tile_ids", "--pipelines", "ktir-to-spatial", cwd=tmp_path)
    assert "Traceback" not in proc.stderr
    assert "refused (below)" in proc.stdout
    assert f"{KERNELS / 'grid2d.mlir'}:" in proc.stdout and "error:" in proc.stdout


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
        assert all(table(proc.stdout)[name][2] == "yes" for name in PIPELINES), proc.stdout

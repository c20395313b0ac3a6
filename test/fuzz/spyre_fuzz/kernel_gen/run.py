"""Running a kernel: the source against its oracle, then each back-end
configuration against the source, in a worker process with a timeout."""

from __future__ import annotations

import contextlib
import os
import tempfile
import time
import traceback

import numpy as np

from spyre_fuzz.kernel_gen.generator import generate
from spyre_fuzz.kernel_gen.kernel import Kernel

CONFIGS = (
    "default",
    "physicalize",
    "ktir-to-schedule",
    "ktir-to-bundle{out-dir=D}",
    "ktir-to-bundle{out-dir=D slices=2}",
    "ktir-to-bundle{out-dir=D format=ktir}",
    "ktir-to-bundle{out-dir=D slices=2 format=ktir}",
    "ktir-to-spatial",
    "ktir-to-spatial{multicast=false}",
)
CATEGORIES = ("ok", "refused", "INTERNAL", "WRONG", "RUNFAIL", "UNLOCATED", "HANG")
FINDINGS = ("INTERNAL", "WRONG", "RUNFAIL", "UNLOCATED", "HANG")


def tolerance(dtype: str, ref: np.ndarray) -> tuple[float, float]:
    scale = float(np.max(np.abs(ref.astype(np.float64)))) if ref.size else 1.0
    if dtype == "f16":
        return 4e-3, 4e-3 * max(scale, 1.0)
    return 2e-5, 2e-5 * max(scale, 1.0)


def close(a: np.ndarray, b: np.ndarray, dtype: str) -> bool:
    a64, b64 = np.asarray(a, np.float64), np.asarray(b, np.float64)
    if a64.shape != b64.shape:
        return False
    rtol, atol = tolerance(dtype, b64)
    return bool(np.allclose(a64, b64, rtol=rtol, atol=atol, equal_nan=True))


def _first_line(s: str, limit: int = 300) -> str:
    s = s.strip()
    return (s.splitlines()[0] if s else "")[:limit]


def classify(exc: BaseException) -> tuple[str, str]:
    from spyre_mlir.diagnostics import DiagnosticError

    if isinstance(exc, DiagnosticError):
        d = exc.diagnostic
        msg = _first_line(d.message)
        if "internal error" in d.message:
            return "INTERNAL", msg
        if d.location is None:
            return "UNLOCATED", msg
        return "refused", msg
    tb = traceback.extract_tb(exc.__traceback__)
    where = f" [{os.path.basename(tb[-1].filename)}:{tb[-1].lineno}]" if tb else ""
    return "INTERNAL", f"{type(exc).__name__}: {_first_line(str(exc))}{where}"


def run_source(k: Kernel) -> tuple[dict | None, str | None]:
    """Interpret the source; compare with the oracle. Returns (raw outputs, generator error)."""
    import warnings

    import spyre_mlir

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            res = spyre_mlir.interpret(k.text, k.name, options=k.options(), **k.args())
        except Exception as exc:  # noqa: BLE001
            return None, f"source does not run: {classify(exc)[1]}"
    raw = {n: np.array(res[n]) for n in k.outputs()}
    for n in k.outputs():
        got = k.logical(n, raw[n])
        if not close(got, k.oracle[n], k.dtype):
            d = np.max(np.abs(got.astype(np.float64) - k.oracle[n].astype(np.float64)))
            return raw, f"source != oracle on '{n}' (max abs diff {d:.3g})"
    return raw, None


def config_spec(config: str, k: Kernel, outdir: str) -> str:
    spec = config.replace("out-dir=D", f"out-dir={outdir}")
    if config.startswith("ktir-to-spatial") or (config.startswith("ktir-to-bundle") and "format=ktir" not in config):
        sc = k.scalars()  # torch-spyre's bundle fixes index scalars when written (docs/bundle.md)
        if sc:
            opt = 'scalars="' + ",".join(f"{a}={b}" for a, b in sc.items()) + '"'
            spec = spec + "{" + opt + "}" if "{" not in spec else spec[:-1] + " " + opt + "}"
    return spec


def run_config(k: Kernel, config: str, source_raw: dict, workdir: str) -> tuple[str, str]:
    """(category, message) of one kernel through one configuration."""
    import warnings

    import spyre_mlir

    outdir = os.path.join(workdir, "bundle")
    spec = config_spec(config, k, outdir)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            module = _parsed(k)
            pm = _pass_manager(spec)
            pm.run(module)
        except Exception as exc:  # noqa: BLE001
            return classify(exc)
        try:
            if config.startswith("ktir-to-bundle") and "format=ktir" not in config:
                # torch-spyre's bundle: argument k is the kernel's k-th array, by byte address
                args = k.args()
                arrays = [name for name, value in args.items() if isinstance(value, np.ndarray)]
                ran = spyre_mlir.interpret(os.path.join(outdir, "bundle.mlir"), "sdsc_bundle",
                                           options=k.options(bundle_dir=outdir),
                                           **{f"arg_{i}_base_addr": args[name] for i, name in enumerate(arrays)})
                res = {name: np.asarray(ran[f"arg_{i}_base_addr"]) for i, name in enumerate(arrays)}
            elif config.startswith("ktir-to-bundle"):
                res = spyre_mlir.interpret(os.path.join(outdir, "bundle.mlir"), "sdsc_bundle",
                                           options=k.options(bundle_dir=outdir),
                                           **k.args())
            else:
                res = spyre_mlir.interpret(module, k.name, options=k.options(), **k.args())
        except Exception as exc:  # noqa: BLE001
            cat, msg = classify(exc)
            return ("INTERNAL" if cat == "INTERNAL" else "RUNFAIL"), msg
    tol_ok = k.sums and k.markers and config != "default"
    for n in k.outputs():
        got = np.asarray(res[n])
        want = source_raw[n]
        if got.shape != want.shape or got.dtype != want.dtype:
            return "WRONG", f"output '{n}' has shape/dtype {got.shape}/{got.dtype}, source {want.shape}/{want.dtype}"
        if np.array_equal(got, want, equal_nan=True):
            continue
        if tol_ok and close(k.logical(n, got), k.logical(n, want), k.dtype):
            continue
        diff = np.abs(got.astype(np.float64) - want.astype(np.float64))
        bad = int(np.count_nonzero(~np.isclose(got.astype(np.float64), want.astype(np.float64), rtol=0, atol=0)))
        return "WRONG", f"output '{n}' differs from the source at {bad}/{got.size} elements (max abs diff {np.nanmax(diff):.3g})"
    return "ok", ""


_PARSED: dict = {}


def _parsed(k: Kernel):
    """A fresh copy of the kernel's module (parsed and verified once per kernel)."""
    from spyre_fuzz.stages import clone_module, parse_text

    key = (k.seed, k.index)
    if key not in _PARSED:
        _PARSED.clear()
        _PARSED[key] = parse_text(k.text)
    return clone_module(_PARSED[key])


def _pass_manager(spec: str):
    """The pipeline's pass manager, its passes built once per process (as the fuzzer does)."""
    from spyre_fuzz.stages import pass_manager

    return pass_manager(spec, pipeline=True)


# -- worker process with a per-config timeout ---------------------------------


def _worker(conn, workdir: str) -> None:
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    with open(os.devnull, "w") as devnull, contextlib.redirect_stderr(devnull):
        while True:
            task = conn.recv()
            if task is None:
                return
            seed, index, configs = task
            try:
                k = generate(seed, index)
            except Exception as exc:  # noqa: BLE001
                conn.send(("gen", "GENERATOR", f"generation failed: {type(exc).__name__}: {exc}"))
                conn.send(("done",))
                continue
            t0 = time.time()
            raw, err = run_source(k)
            conn.send(("source", "GENERATOR" if err else "ok", err or "", round(time.time() - t0, 2), k.features))
            if raw is not None and err is None:
                for c in configs:
                    t0 = time.time()
                    try:
                        cat, msg = run_config(k, c, raw, workdir)
                    except Exception as exc:  # noqa: BLE001
                        cat, msg = classify(exc)
                    conn.send(("config", c, cat, msg, round(time.time() - t0, 2)))
            conn.send(("done",))


class Runner:
    def __init__(self, timeout: float):
        import multiprocessing as mp

        self.ctx = mp.get_context("fork")
        self.timeout = timeout
        self.tmp = tempfile.mkdtemp(prefix="kernel_gen_")
        self.proc = None
        self._start()

    def _start(self):
        self.conn, child = self.ctx.Pipe()
        self.proc = self.ctx.Process(target=_worker, args=(child, self.tmp), daemon=True)
        self.proc.start()

    def _kill(self):
        with contextlib.suppress(Exception):
            self.proc.kill()
            self.proc.join(5)
        self._start()

    def run(self, seed: int, index: int, configs) -> dict:
        out = {"index": index, "source": None, "configs": {}}
        self.conn.send((seed, index, list(configs)))
        pending = list(configs)
        while True:
            if not self.conn.poll(self.timeout):
                where = pending[0] if out["source"] is not None and pending else "source"
                if where == "source":
                    out["source"] = {"category": "HANG", "message": f"source over {self.timeout:g} s"}
                else:
                    out["configs"][where] = {"category": "HANG", "message": f"over {self.timeout:g} s", "time": self.timeout}
                    for c in pending[1:]:
                        out["configs"][c] = {"category": "skipped", "message": "after a hang", "time": 0}
                self._kill()
                return out
            try:
                msg = self.conn.recv()
            except EOFError:
                where = pending[0] if pending else "source"
                code = self.proc.exitcode
                if out["source"] is None:
                    out["source"] = {"category": "INTERNAL", "message": f"worker died (exit {code})"}
                else:
                    out["configs"][where] = {"category": "INTERNAL", "message": f"worker crashed (exit {code})", "time": 0}
                self._kill()
                return out
            if msg[0] == "done":
                return out
            if msg[0] in ("gen", "source"):
                out["source"] = {"category": msg[1], "message": msg[2]}
                if msg[0] == "source":
                    out["source"]["time"] = msg[3]
                    out["features"] = msg[4]
            elif msg[0] == "config":
                _, c, cat, m, t = msg
                out["configs"][c] = {"category": cat, "message": m, "time": t}
                if c in pending:
                    pending.remove(c)

    def close(self):
        with contextlib.suppress(Exception):
            self.conn.send(None)
            self.proc.join(5)
        if self.proc.is_alive():
            self.proc.kill()

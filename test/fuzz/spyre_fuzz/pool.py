"""The worker pool: each input runs in a worker process with a timeout; a
worker that hangs is stopped after a stack dump, one that dies is replaced."""

from __future__ import annotations

import contextlib
import math
import multiprocessing
import multiprocessing.connection
import os
import re
import shutil
import signal
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from spyre_fuzz.corpus import default_seed_paths
from spyre_fuzz.stages import evaluate, parse_text, short_path


def _worker_main(conn, dump_path: str, memory_limit: int) -> None:
    import faulthandler

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    dump = open(dump_path, "w")  # noqa: SIM115 - lives as long as the process
    faulthandler.enable(file=dump, all_threads=True)
    faulthandler.register(signal.SIGUSR1, file=dump, all_threads=True)
    if memory_limit > 0:
        with contextlib.suppress(Exception):
            import resource

            resource.setrlimit(resource.RLIMIT_AS, (memory_limit, memory_limit))
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.dup2(devnull, 2)
    while True:
        try:
            task = conn.recv()
        except (EOFError, OSError):
            return
        if task is None:
            return
        key, data, stages = task

        def report(event, stage, outcome, key=key):
            conn.send((event, key, stage, outcome))

        result = evaluate(data, stages, report)
        conn.send(("done", key, None, result))


class _Worker:
    def __init__(self, ctx, serial: int, tmpdir: str, memory_limit: int):
        self.dump = os.path.join(tmpdir, f"worker-{serial}.txt")
        self.conn, child = ctx.Pipe()
        self.proc = ctx.Process(target=_worker_main, args=(child, self.dump, memory_limit), daemon=True)
        self.proc.start()
        child.close()
        self.key: str | None = None
        self.stage: str | None = None
        self.partial: dict = {}
        self.deadline = math.inf

    def stop(self, kill: bool = False) -> None:
        if kill:
            with contextlib.suppress(Exception):
                self.proc.kill()
        else:
            with contextlib.suppress(Exception):
                self.conn.send(None)
        self.proc.join(timeout=5)
        if self.proc.is_alive():
            self.proc.kill()
            self.proc.join()
        with contextlib.suppress(Exception):
            self.conn.close()

    def read_dump(self) -> str:
        try:
            return Path(self.dump).read_text(errors="replace")
        except OSError:
            return ""


_FUZZER = "spyre_fuzz/"  # in the frames of the fuzzer's own code


def _stack_site(dump: str) -> tuple[str | None, list[str]]:
    """From a faulthandler dump: the innermost frame of ours (or xDSL's), and the deepest stack."""
    threads = re.split(r"\n(?=(?:Current thread|Thread) 0x)", dump)
    best: list[str] = []
    for t in threads:
        frames = re.findall(r'File "([^"]+)", line (\d+) in (\S+)', t)
        rendered = [f"{short_path(path)}:{line} in {fn}" for path, line, fn in frames]
        if any(_FUZZER in r and "_worker_main" in r for r in rendered) and len(rendered) > len(best):
            best = rendered
        elif not best and len(rendered) > len(best):
            best = rendered
    cut = next((i for i, r in enumerate(best) if "_worker_main" in r), len(best))
    best = best[:cut]
    deep = [r for r in best if _FUZZER not in r and "/threading.py" not in r]
    frames = [r for r in best if "/threading.py" not in r]
    site = next((r for r in deep if not r.startswith(("xdsl/", "numpy/")) and "/python3." not in r), None)
    return site or (deep[0] if deep else None), frames[:12]


class Pool:
    """`jobs` worker processes; each input gets `timeout` seconds."""

    def __init__(self, jobs: int = 2, timeout: float = 10.0, memory_limit_mb: int = 12288):
        self.jobs = max(1, jobs)
        self.timeout = timeout
        self.memory_limit = memory_limit_mb * 1024 * 1024
        method = "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"
        self.ctx = multiprocessing.get_context(method)
        self.tmpdir = tempfile.mkdtemp(prefix="spyre-fuzz-")
        self.serial = 0
        self.workers: list[_Worker] = []
        _warm_up()

    def _spawn(self) -> _Worker:
        self.serial += 1
        return _Worker(self.ctx, self.serial, self.tmpdir, self.memory_limit)

    def __enter__(self) -> Pool:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        for w in self.workers:
            w.stop(kill=w.key is not None)
        self.workers = []
        shutil.rmtree(self.tmpdir, ignore_errors=True)

    def run(
        self,
        tasks: Sequence[tuple[str, bytes, Sequence[str]]],
        on_result: Callable[[str, dict], None] | None = None,
        timeout: float | None = None,
    ) -> dict[str, dict]:
        """Results by key: stage outcomes, plus `hang`/`crash` details."""
        timeout = self.timeout if timeout is None else timeout
        while len(self.workers) < min(self.jobs, max(1, len(tasks))):
            self.workers.append(self._spawn())
        pending = list(reversed(tasks))
        results: dict[str, dict] = {}

        def finish(w: _Worker, result: dict) -> None:
            results[w.key] = result
            if on_result:
                on_result(w.key, result)
            w.key, w.stage, w.partial, w.deadline = None, None, {}, math.inf

        def replace(w: _Worker) -> None:
            i = self.workers.index(w)
            w.stop(kill=True)
            self.workers[i] = self._spawn()

        while pending or any(w.key is not None for w in self.workers):
            for w in self.workers:
                if w.key is None and pending:
                    key, data, stages = pending.pop()
                    w.key, w.stage, w.partial = key, None, {}
                    w.deadline = time.monotonic() + timeout
                    try:
                        w.conn.send((key, data, tuple(stages)))
                    except (BrokenPipeError, OSError):
                        pass  # seen as a crash below
            busy = [w for w in self.workers if w.key is not None]
            wait = max(0.0, min(w.deadline for w in busy) - time.monotonic())
            ready = multiprocessing.connection.wait([w.conn for w in busy] + [w.proc.sentinel for w in busy], wait)
            for w in list(busy):
                if w.conn in ready or w.proc.sentinel in ready:
                    try:
                        while w.key is not None and w.conn.poll():
                            event, key, stage, outcome = w.conn.recv()
                            if event == "begin":
                                w.stage = stage
                            elif event == "end":
                                w.partial[stage] = outcome
                            elif event == "done":
                                finish(w, outcome)
                    except (EOFError, OSError):
                        pass
                    if w.key is not None and not w.proc.is_alive():
                        w.proc.join()
                        code = w.proc.exitcode
                        site, frames = _stack_site(w.read_dump())
                        why = (
                            f"signal {-code} ({signal.Signals(-code).name})"
                            if code and code < 0
                            else f"exit code {code}"
                        )
                        stage = w.stage or "parse"
                        result = dict(w.partial)
                        result[stage] = {
                            "category": "crash",
                            "message": f"worker died: {why}",
                            "site": site,
                            "frames": frames,
                        }
                        finish(w, result)
                        replace(w)
            now = time.monotonic()
            for w in list(self.workers):
                if w.key is not None and now >= w.deadline:
                    with contextlib.suppress(Exception):
                        os.kill(w.proc.pid, signal.SIGUSR1)
                    time.sleep(0.3)
                    site, frames = _stack_site(w.read_dump())
                    stage = w.stage or "parse"
                    result = dict(w.partial)
                    result[stage] = {
                        "category": "hang",
                        "message": f"no result after {timeout:g} s",
                        "site": site,
                        "frames": frames,
                    }
                    finish(w, result)
                    replace(w)
        return results


_WARM = False


def _warm_up() -> None:
    """Import and load everything once, so forked workers start warm."""
    global _WARM
    if _WARM:
        return
    _WARM = True
    import numpy  # noqa: F401

    from spyre_mlir import interpreter  # noqa: F401
    from spyre_mlir.passes import get_all_passes
    from spyre_mlir.tools import spyre_run  # noqa: F401

    get_all_passes()
    for path in default_seed_paths():
        with contextlib.suppress(Exception):
            parse_text(path.read_text(encoding="utf-8", errors="replace"))

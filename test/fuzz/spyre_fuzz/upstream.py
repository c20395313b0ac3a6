"""Upstream MLIR (`iree-opt`): its parse+verify verdict on an input, to
compare with ours."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

_SPLIT_IN = "// spyre-fuzz-split-input"
_SPLIT_OUT = "// spyre-fuzz-split-output"


def find_iree_opt() -> str | None:
    """Upstream MLIR's `iree-opt`: beside this Python (the iree-base-compiler wheel), else on
    PATH; None when there is none (the parity checks are then skipped)."""
    beside = Path(sys.executable).with_name("iree-opt")
    if beside.exists():
        return str(beside)
    return shutil.which("iree-opt")


def iree_verdicts(
    exe: str, datas: Sequence[bytes], timeout: float = 60.0, batch: int = 40, jobs: int = 2
) -> list[dict]:
    """Upstream MLIR's parse+verify verdict per input: {"verdict": "accept"|"reject"|"crash"|"hang", "error": ...}.

    Inputs are checked many per `iree-opt --split-input-file` process; a batch
    whose output cannot be attributed (iree-opt crashed) is rerun one by one."""
    from concurrent.futures import ThreadPoolExecutor

    groups = [list(range(i, min(i + batch, len(datas)))) for i in range(0, len(datas), batch)]
    out: list[dict] = [{} for _ in datas]

    def one_by_one(indices: list[int]) -> None:
        for i in indices:
            out[i] = iree_verdict(exe, datas[i], timeout)

    def run_group(indices: list[int]) -> None:
        if any(_SPLIT_IN.encode() in datas[i] or _SPLIT_OUT.encode() in datas[i] for i in indices):
            return one_by_one(indices)
        chunks = [datas[i] if datas[i].endswith(b"\n") else datas[i] + b"\n" for i in indices]
        joined = f"\n{_SPLIT_IN}\n".encode().join(chunks)
        try:
            proc = subprocess.run(
                [exe, f"--split-input-file={_SPLIT_IN}", f"--output-split-marker={_SPLIT_OUT}", "-"],
                input=joined,
                capture_output=True,
                timeout=timeout * 4,
            )
        except subprocess.TimeoutExpired:
            return one_by_one(indices)
        pieces = re.split(rf"^{re.escape(_SPLIT_OUT)}$", proc.stdout.decode("utf-8", "replace"), flags=re.MULTILINE)
        if proc.returncode not in (0, 1) or len(pieces) != len(indices):
            return one_by_one(indices)
        for i, piece in zip(indices, pieces):
            out[i] = {"verdict": "accept" if piece.strip() else "reject"}

    with ThreadPoolExecutor(max_workers=max(1, jobs)) as ex:
        list(ex.map(run_group, groups))
    return out


def iree_verdict(exe: str, data: bytes, timeout: float = 60.0) -> dict:
    try:
        proc = subprocess.run([exe, "-", "-o", os.devnull], input=data, capture_output=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"verdict": "hang"}
    err = proc.stderr.decode("utf-8", "replace")
    first = next(
        (line for line in err.splitlines() if "error:" in line), err.strip().splitlines()[0] if err.strip() else ""
    )
    if proc.returncode == 0:
        return {"verdict": "accept"}
    if proc.returncode == 1:
        return {"verdict": "reject", "error": first}
    return {"verdict": "crash", "error": f"exit code {proc.returncode}: {first}"}


def our_verdict(result: dict) -> str | None:
    category = result.get("parse", {}).get("category")
    if category == "accepted":
        return "accept"
    if category in ("located", "unlocated"):
        return "reject"
    return None

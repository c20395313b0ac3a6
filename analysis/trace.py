"""Chrome trace events (https://ui.perfetto.dev), the one writer of every simulated timeline.

A trace is `{"traceEvents": [...], "displayTimeUnit": "ns", "otherData": {...}}`:
metadata events name and order the processes (`pid`: a core, a site) and their
threads (`tid`: an engine), then one complete ("X") event per span, `ts` and
`dur` in microseconds. The cost model's estimate (`interpreter/cost_report.py`)
and the spatial interpreter's run (`interpreter/ops_spatial.py`) build theirs
from these pieces; `spyre-run --trace` writes them with `write_json`.
"""

from __future__ import annotations

import json
import os


def process(pid: int, name: str) -> list[dict]:
    """The metadata naming process `pid` and placing it at its own index."""
    return [
        {"name": "process_name", "ph": "M", "pid": pid, "tid": 0, "args": {"name": name}},
        {"name": "process_sort_index", "ph": "M", "pid": pid, "tid": 0, "args": {"sort_index": pid}},
    ]


def thread(pid: int, tid: int, name: str) -> list[dict]:
    """The metadata naming thread `tid` of process `pid` and placing it at its own index."""
    return [
        {"name": "thread_name", "ph": "M", "pid": pid, "tid": tid, "args": {"name": name}},
        {"name": "thread_sort_index", "ph": "M", "pid": pid, "tid": tid, "args": {"sort_index": tid}},
    ]


def span(name: str, cat: str, ts: float, dur: float, pid: int, tid: int, args: dict) -> dict:
    """One complete event: `ts` and `dur` in microseconds."""
    return {"name": name, "cat": cat, "ph": "X", "ts": ts, "dur": dur, "pid": pid, "tid": tid, "args": args}


def document(meta: list[dict], events: list[dict], other: dict) -> dict:
    """The trace: metadata first, then the spans; `other` describes the model and its units."""
    return {"traceEvents": meta + events, "displayTimeUnit": "ns", "otherData": other}


def write_json(path: str | os.PathLike, data, compact: bool = False) -> None:
    """`data` as JSON into `path` ("-": standard output); `compact` without spaces (traces are large)."""
    text = json.dumps(data, separators=(",", ":")) if compact else json.dumps(data, indent=2)
    if str(path) == "-":
        print(text)
        return
    with open(path, "w", encoding="utf-8") as f:
        f.write(text + "\n")
